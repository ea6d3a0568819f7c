"""The distribution files: core metadata from pyproject.toml's `[project]`,
the wheel (PEP 427: the package, a `.dist-info` with METADATA, WHEEL and
RECORD) and the source distribution (PEP 517: the tracked source tree with
PKG-INFO).

Archives are reproducible: entries are sorted and stamped with
`SOURCE_DATE_EPOCH` (default 1980-01-01), so the same files give the same
bytes.
"""

import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

# The `[project]` keys this backend writes into the metadata; any other is
# refused rather than silently dropped.
_PROJECT_KEYS = {"name", "dynamic", "description", "readme",
                 "requires-python", "dependencies", "classifiers", "keywords"}


def normalized_name(name):
    """The name as wheel and sdist file names spell it (PEP 503 + 427)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def core_metadata(project, version, root):
    """METADATA / PKG-INFO (core metadata 2.1) for `project`, the parsed
    `[project]` table, read files relative to `root`."""
    unknown = set(project) - _PROJECT_KEYS
    if unknown:
        raise ValueError("pyproject.toml: [project] keys not supported by "
                         f"loaderx_build: {', '.join(sorted(unknown))}")
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {version}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if project.get("keywords"):
        lines.append(f"Keywords: {','.join(project['keywords'])}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    body = ""
    if "readme" in project:
        readme = project["readme"]
        if not isinstance(readme, str) or not readme.endswith(".md"):
            raise ValueError("pyproject.toml: readme must name a .md file")
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(root, readme), encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _epoch():
    return int(os.environ.get("SOURCE_DATE_EPOCH", 315532800))


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(path, files, dist_info, metadata, tag, generator):
    """Writes the wheel `path`. `files`: {archive name: (bytes, executable)}
    for the package; `dist_info`: the `.dist-info` directory's name."""
    entries = dict(files)
    entries[f"{dist_info}/METADATA"] = (metadata.encode(), False)
    entries[f"{dist_info}/WHEEL"] = ((
        "Wheel-Version: 1.0\n"
        f"Generator: {generator}\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode(), False)
    record_name = f"{dist_info}/RECORD"
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n"
                     for name, (data, _) in sorted(entries.items()))
    record += f"{record_name},,\n"
    entries[record_name] = (record.encode(), False)
    stamp = time.gmtime(max(_epoch(), 315532800))[:6]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        # RECORD last, as PEP 427 recommends.
        for name in sorted(entries, key=lambda n: (n == record_name, n)):
            data, executable = entries[name]
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)


def write_sdist(path, root, sources, top, pkg_info):
    """Writes the source distribution `path` (a .tar.gz): the files
    `sources` (relative to `root`) under the directory `top`, and PKG-INFO."""
    def add(tar, name, data, mode):
        info = tarfile.TarInfo(f"{top}/{name}")
        info.size, info.mode, info.mtime = len(data), mode, _epoch()
        tar.addfile(info, io.BytesIO(data))

    with open(path, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=_epoch()) as zipped, \
            tarfile.open(fileobj=zipped, mode="w",
                         format=tarfile.PAX_FORMAT) as tar:
        add(tar, "PKG-INFO", pkg_info.encode(), 0o644)
        for name in sorted(sources):
            full = os.path.join(root, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue  # A deleted or symlinked file: not a source.
            with open(full, "rb") as f:
                data = f.read()
            add(tar, name, data, 0o755 if os.access(full, os.X_OK) else 0o644)
