"""loaderx's PEP 517 build backend: `pip install .` and
`python -m build --wheel` build the `loaderx` package through Bazel.

pyproject.toml names this package with `backend-path`, and it needs nothing
but the standard library, so pip's isolated build environment installs
nothing (it works offline). `build_wheel`:

1. asks Bazel which system libraries the extension links
   (`bazel cquery`) and has tools/packaging/static_deps.sh make
   position-independent static archives of them (and of libstdc++);
2. builds the extension and the SWIG module with `--config=wheel` (see
   .bazelrc) plus `-L` to those archives, against the headers of the
   interpreter running the build (`LOADERX_PYTHON`);
3. checks the extension (`elf.check`: glibc only, nothing exported but
   `PyInit__loaderx_native`) and tags the wheel for that interpreter and the
   manylinux platform its glibc symbol versions name, e.g.
   `cp311-abi3-manylinux_2_36_x86_64` (one wheel for CPython 3.11+);
4. writes the wheel: swig/python/loaderx/ (modules, py.typed) plus the
   built `loaderx_native.py` and `_loaderx_native.so`.

The version is `LOADERX_VERSION` in bazel/version.bzl. Bazel is Debian's
(tools/ci/install_deps.sh installs it). Environment: `LOADERX_CACHE` (the
archives' cache, default /var/tmp/loaderx-cache), `LOADERX_BAZEL`
(the Bazel binary, default `bazel`).
"""

import os
import platform
import re
import subprocess
import sys
import sysconfig

if sys.version_info < (3, 11):
    raise RuntimeError("building loaderx needs Python 3.11 or newer "
                       f"(this is {platform.python_version()})")

import tomllib  # noqa: E402 (after the version check)

from loaderx_build import archive, elf  # noqa: E402

# This file is tools/packaging/loaderx_build/__init__.py.
_ROOT = os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_PACKAGE_SOURCES = os.path.join(_ROOT, "swig", "python", "loaderx")
_EXTENSION = "//swig:python/loaderx/_loaderx_native.so"
_BUILT_FILES = ("loaderx_native.py", "_loaderx_native.so")
_INIT_SYMBOL = "PyInit__loaderx_native"
# glibc's libraries stay dynamic (see elf.GLIBC_LIBRARIES).
_DYNAMIC_LIBRARIES = {"c", "m", "pthread", "dl", "rt"}


def _log(message):
    print(f"loaderx_build: {message}", file=sys.stderr, flush=True)


def _project():
    with open(os.path.join(_ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version():
    with open(os.path.join(_ROOT, "bazel", "version.bzl"),
              encoding="utf-8") as f:
        return re.search(r'LOADERX_VERSION = "([^"]+)"', f.read()).group(1)


def _metadata():
    return archive.core_metadata(_project(), _version(), _ROOT)


def _dist_info():
    return (f"{archive.normalized_name(_project()['name'])}-{_version()}"
            ".dist-info")


def _interpreter_tags():
    """`cp311-abi3`: the extension uses Python 3.11's limited API (see
    bazel/python_headers.bzl), so one wheel serves CPython 3.11 and every
    later version. A free-threaded interpreter has no limited API: its
    wheel is for that version alone, e.g. `cp313-cp313t`."""
    if sys.implementation.name != "cpython":
        raise RuntimeError("loaderx's extension is built for CPython, not "
                           f"{sys.implementation.name}")
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        version = f"{sys.version_info.major}{sys.version_info.minor}"
        return f"cp{version}-cp{version}{sys.abiflags}"
    return "cp311-abi3"


def _interpreter():
    """The interpreter whose headers the extension is built against: this
    one (outside any virtual environment, whose path changes per build)."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


class _Bazel:
    def __init__(self):
        self.binary = os.environ.get("LOADERX_BAZEL", "bazel")
        self.env = dict(os.environ, LOADERX_PYTHON=_interpreter())
        self.flags = ["--config=wheel"]
        if not sys.stderr.isatty():
            self.flags += ["--color=no", "--curses=no"]

    def run(self, command, *args, capture=False):
        argv = [self.binary, command, *self.flags, *args]
        try:
            result = subprocess.run(
                argv, cwd=_ROOT, env=self.env, check=True, text=True,
                stdout=subprocess.PIPE if capture else sys.stderr)
        except FileNotFoundError:
            raise RuntimeError(
                f"{self.binary} not found: run `bash "
                "tools/ci/install_deps.sh` (Debian's bazel-bootstrap and the "
                "build dependencies)") from None
        return result.stdout


def _pkg_config_module(library):
    """The pkg-config module of `-llibrary`: `absl_base` is absl_base.pc,
    `zstd` libzstd.pc."""
    for module in (library, f"lib{library}"):
        if subprocess.run(["pkg-config", "--exists", module]).returncode == 0:
            return module
    raise RuntimeError(f"no pkg-config module for -l{library}, so the "
                       "libraries it needs to link statically are unknown")


def _static_libraries(bazel, target=_EXTENSION):
    """The libraries to link statically, in link order: those the
    `@system_libs` dependencies of `target` (default: the extension) name
    with `-l` and everything
    they need in turn (`pkg-config --static`, as shared libraries would
    bring it in), glibc's aside; and libstdc++, which the C++ toolchain
    links."""
    rules = bazel.run(
        "cquery", f'filter("^@system_libs//", deps({target}))',
        "--output=build", capture=True)
    direct = sorted(
        set(re.findall(r'"-l([^"]+)"', rules)) - _DYNAMIC_LIBRARIES)
    flags = subprocess.run(
        ["pkg-config", "--static", "--libs-only-l",
         *map(_pkg_config_module, direct)],
        check=True, capture_output=True, text=True).stdout.split()
    # Each library once, at its last place: after everything that needs it.
    closure = []
    for flag in reversed(flags):
        name = flag[2:]
        if name not in _DYNAMIC_LIBRARIES and name not in closure:
            closure.insert(0, name)
    return closure + ["stdc++"]


def link_statically(bazel, target):
    """Adds to `bazel`'s flags what links `target`'s system libraries (and
    libstdc++) into it statically: tools/packaging/static_deps.sh's
    archives."""
    libraries = _static_libraries(bazel, target)
    _log(f"static archives for -l{' -l'.join(libraries)}")
    archives = subprocess.run(
        ["bash", os.path.join(_ROOT, "tools", "packaging", "static_deps.sh"),
         *libraries], check=True, stdout=subprocess.PIPE, text=True).stdout
    # The whole closure again after the dependencies' own `-l` flags, so
    # that every archive comes after the archives that need it.
    bazel.flags += [f"--linkopt=-L{archives.strip()}"] + [
        f"--linkopt=-l{name}" for name in libraries if name != "stdc++"]


def _build_extension():
    """Builds the extension and returns bazel-bin's package directory, the
    glibc version (major, minor) the extension needs, and the `_Bazel`."""
    bazel = _Bazel()
    link_statically(bazel, _EXTENSION)
    bazel.run("build", "//swig:python", _EXTENSION)
    bin_dir = bazel.run("info", "bazel-bin", capture=True).strip()
    package = os.path.join(bin_dir, "swig", "python", "loaderx")
    glibc = elf.check(os.path.join(package, "_loaderx_native.so"),
                      exported={_INIT_SYMBOL})
    return package, glibc, bazel


def _package_files(built):
    """{archive name: (bytes, executable)}: the package's sources, then the
    built files."""
    files = {}
    for name in sorted(os.listdir(_PACKAGE_SOURCES)):
        if name.endswith((".py", ".pyi")) or name == "py.typed":
            with open(os.path.join(_PACKAGE_SOURCES, name), "rb") as f:
                files[f"loaderx/{name}"] = (f.read(), False)
    for name in _BUILT_FILES:
        with open(os.path.join(built, name), "rb") as f:
            files[f"loaderx/{name}"] = (f.read(), name.endswith(".so"))
    return files


# --- PEP 517 hooks -----------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = os.path.join(metadata_directory, _dist_info())
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    built, glibc, bazel = _build_extension()
    tag = (f"{_interpreter_tags()}-"
           f"{elf.manylinux_tag(glibc, platform.machine())}")
    name = (f"{archive.normalized_name(_project()['name'])}-{_version()}-"
            f"{tag}.whl")
    archive.write_wheel(os.path.join(wheel_directory, name),
                        _package_files(built), _dist_info(), _metadata(), tag,
                        generator=f"loaderx_build {_version()}")
    if os.path.exists(os.path.join(_ROOT, "PKG-INFO")):
        # An unpacked sdist, in a temporary directory: nothing would use its
        # Bazel server (idle for hours) or output base again.
        subprocess.run([bazel.binary, "clean", "--expunge"], cwd=_ROOT,
                       check=False)
    _log(f"wrote {name}")
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked files of the git checkout (modified ones as they are
    now), with PKG-INFO."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=_ROOT,
                                check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise RuntimeError("a source distribution is made from a git "
                           f"checkout of loaderx: {error}") from None
    top = f"{archive.normalized_name(_project()['name'])}-{_version()}"
    name = f"{top}.tar.gz"
    archive.write_sdist(os.path.join(sdist_directory, name), _ROOT,
                        listed.decode().split("\0")[:-1], top, _metadata())
    return name
