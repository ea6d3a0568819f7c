"""One version for every package: the Python package's `__version__` is the
release version that the C++ packages (CMake, pkg-config) carry."""

import pathlib
import re

import loaderx


def test_python_version_is_the_release_version():
    bzl = pathlib.Path(__file__).resolve().parents[2] / "bazel" / "version.bzl"
    if not bzl.exists():  # Under Bazel, the source tree is the runfiles.
        bzl = pathlib.Path("bazel/version.bzl")
    release = re.search(r'LOADERX_VERSION = "([^"]+)"', bzl.read_text()).group(1)
    assert loaderx.__version__ == release
