"""What the wheel's extension asks of the machine that loads it, read from
its ELF headers with binutils' `readelf`, and the manylinux platform tag
that follows.

A manylinux wheel may depend on glibc's own libraries only, at symbol
versions no newer than its tag's glibc (PEP 600). The extension links
everything else in statically (tools/packaging/static_deps.sh) and exports
nothing but its module initialiser (swig/python_exports.lds); `check`
refuses an extension for which either is not so, naming what is wrong.
"""

import re
import subprocess

# glibc's libraries, which every manylinux platform provides.
GLIBC_LIBRARIES = frozenset({
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
})

# The oldest glibc a manylinux_x_y tag names for x86_64 (PEP 600's
# manylinux2014 is manylinux_2_17).
_OLDEST_GLIBC = (2, 17)


class ExtensionError(Exception):
    """The extension is not fit for a manylinux wheel."""


def _readelf(flag, path):
    return subprocess.run(["readelf", "-W", flag, path], check=True,
                          capture_output=True, text=True).stdout


def needed_libraries(path):
    """The shared libraries `path` names as NEEDED, in order."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                      _readelf("-d", path))


def exported_symbols(path):
    """The symbols `path` defines and exports (global or weak, not hidden)."""
    symbols = set()
    for line in _readelf("--dyn-syms", path).splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) >= 8 and fields[0].endswith(":") and fields[6] != "UND" \
                and fields[4] in ("GLOBAL", "WEAK") and fields[5] == "DEFAULT":
            symbols.add(fields[7].split("@")[0])
    return symbols


def required_versions(path):
    """{library: [symbol version names]} from the version-needs section."""
    versions, library = {}, None
    for line in _readelf("--version-info", path).splitlines():
        file_match = re.search(r"File: (\S+)", line)
        if file_match:
            library = file_match.group(1)
            versions.setdefault(library, [])
            continue
        name_match = re.search(r"Name: (\S+)", line)
        if name_match and library is not None:
            versions[library].append(name_match.group(1))
    return versions


def _glibc_version(name):
    match = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def check(path, exported):
    """Checks the extension at `path` and returns the glibc version (major,
    minor) it needs. `exported`: the only symbols it may export."""
    foreign = [lib for lib in needed_libraries(path)
               if lib not in GLIBC_LIBRARIES]
    if foreign:
        raise ExtensionError(
            f"{path} links {', '.join(foreign)} dynamically; a manylinux "
            "wheel may need glibc only (link the library statically: "
            "tools/packaging/static_deps.sh)")
    extra = sorted(exported_symbols(path) - set(exported))
    if extra:
        raise ExtensionError(
            f"{path} exports {', '.join(extra[:10])}"
            f"{' ...' if len(extra) > 10 else ''} besides "
            f"{', '.join(sorted(exported))} (see swig/python_exports.lds)")
    newest = _OLDEST_GLIBC
    for library, names in required_versions(path).items():
        for name in names:
            version = _glibc_version(name)
            if version is None:
                raise ExtensionError(
                    f"{path} needs {name} from {library}, which is not a "
                    "glibc symbol version")
            newest = max(newest, version)
    return newest


def manylinux_tag(glibc, machine):
    """PEP 600's platform tag for a glibc (major, minor) and a machine."""
    return f"manylinux_{glibc[0]}_{glibc[1]}_{machine}"
