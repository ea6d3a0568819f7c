"""Checks of an installed loaderx wheel, run with pytest by
tools/ci/test_wheel.sh inside each fresh venv it installs the wheel into
(from a directory outside the source tree, so `loaderx` is the installed
package). `LOADERX_EXPECT_NUMPY` is the numpy major the venv was given.

The behaviour of the API is tested against the Bazel build
(tests/python/); these check what installing adds: that the package comes
from the venv and is complete, that the statically linked engine works
there (codecs, dictionaries, errors raised through C++ exceptions, threads,
pickling into a spawned process), and that it keeps its symbols to itself.
"""

import ctypes
import importlib
import importlib.metadata
import json
import multiprocessing
import os
import pathlib
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import loaderx
from loaderx.errors import IndexOutOfRangeError, ZrecordError
from loaderx.utils import train_dict
from loaderx.zrecord import DenseStore, RaggedStore

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_PUBLIC_MODULES = ("zrecord", "zsampler", "dataloader", "utils", "errors",
                   "vfs")
_DISTRIBUTION = "loaderx-cpp"


def _release_version():
    text = (_ROOT / "bazel" / "version.bzl").read_text()
    return re.search(r'LOADERX_VERSION = "([^"]+)"', text).group(1)


def test_loaderx_comes_from_the_venv():
    site = pathlib.Path(sys.prefix).resolve()
    package = pathlib.Path(loaderx.__file__).resolve().parent
    assert site in package.parents
    assert _ROOT not in package.parents
    native = importlib.import_module("loaderx._loaderx_native")
    assert pathlib.Path(native.__file__).resolve().parent == package


def test_versions_are_the_release_version():
    release = _release_version()
    assert loaderx.__version__ == release
    assert importlib.metadata.version(_DISTRIBUTION) == release


def test_numpy_is_the_expected_major():
    expected = os.environ.get("LOADERX_EXPECT_NUMPY")
    if expected is None:
        pytest.skip("LOADERX_EXPECT_NUMPY not set")
    assert np.__version__.split(".")[0] == expected


def test_distribution_holds_the_package_and_its_type_marker():
    files = {str(f) for f in importlib.metadata.files(_DISTRIBUTION)}
    for module in _PUBLIC_MODULES + ("__init__", "loaderx_native"):
        assert f"loaderx/{module}.py" in files
    assert "loaderx/py.typed" in files
    assert "loaderx/_loaderx_native.so" in files
    # Nothing outside the package and its metadata.
    assert {f.split("/")[0] for f in files} == {
        "loaderx", f"loaderx_cpp-{_release_version()}.dist-info"}
    requires = importlib.metadata.requires(_DISTRIBUTION)
    assert any(r.startswith("numpy") for r in requires)


@pytest.mark.parametrize("module", _PUBLIC_MODULES)
def test_public_modules_import(module):
    importlib.import_module(f"loaderx.{module}")


def test_extension_exports_only_its_initialiser():
    native = importlib.import_module("loaderx._loaderx_native")
    library = ctypes.CDLL(native.__file__)
    assert hasattr(library, "PyInit__loaderx_native")
    # Linked in (local symbols of the extension's symbol table), not
    # exported: zstd's C API and Abseil's (Debian's inline namespace).
    for hidden in ("ZSTD_versionNumber", "ZSTD_decompress",
                   "_ZN4absl7debian36StatusC2ENS0_10StatusCodeENS0_11string_viewE"):
        assert not hasattr(library, hidden), hidden


@pytest.mark.parametrize("codec", ["raw", "zstd", "zstd_dict"])
def test_dense_store_round_trip(tmp_path, codec):
    data = np.arange(4000, dtype=np.float32).reshape(100, 4, 10) % 7
    dictionary = train_dict(data, tier="fast") if codec == "zstd_dict" else None
    with DenseStore(tmp_path / "d", data.dtype, data.shape[1:], codec=codec,
                    dict_bytes=dictionary) as store:
        store.append(data)
    with DenseStore(tmp_path / "d") as store:
        assert store.codec == codec
        np.testing.assert_array_equal(store[np.arange(100)], data)
        np.testing.assert_array_equal(store[[99, 3, 3]], data[[99, 3, 3]])


def test_ragged_store_round_trip(tmp_path):
    records = [np.arange(n, dtype=np.int32) for n in (3, 1, 17, 2)]
    with RaggedStore(tmp_path / "r", np.int32) as store:
        store.append(records)
    with RaggedStore(tmp_path / "r") as store:
        for got, want in zip(store[0, 1, 2, 3], records):
            np.testing.assert_array_equal(got, want)


def test_engine_errors_arrive_as_python_exceptions(tmp_path):
    # Raised in C++ and caught at the binding boundary: the statically
    # linked C++ runtime unwinds inside the extension.
    with DenseStore(tmp_path / "e", np.uint8, (2,)) as store:
        store.append(np.zeros((3, 2), np.uint8))
        with pytest.raises(IndexOutOfRangeError) as raised:
            store[np.array([5], dtype=np.uint64)]
        assert raised.value.code == -3
        with pytest.raises(ZrecordError) as busy:
            DenseStore(tmp_path / "e")
        assert busy.value.code == -14 and isinstance(busy.value, BlockingIOError)


def test_the_typed_api_runs(tmp_path):
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    try:
        typed_usage = importlib.import_module("typed_usage")
    finally:
        sys.path.pop(0)
    typed_usage.use_the_api(tmp_path)


def _read_in_child(pickled, queue):
    store = pickle.loads(pickled)
    queue.put((len(store), store[len(store) - 1].tolist()))
    store.close()


def test_a_pickled_store_reopens_in_a_spawned_process(tmp_path):
    data = np.arange(12, dtype=np.int64).reshape(6, 2)
    with DenseStore(tmp_path / "p", data.dtype, (2,)) as store:
        store.append(data)
        pickled = pickle.dumps(store)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_read_in_child, args=(pickled, queue))
    child.start()
    try:
        assert queue.get(timeout=120) == (6, [10, 11])
    finally:
        child.join(timeout=120)
    assert child.exitcode == 0


def test_the_command_line_runs_from_the_wheel(tmp_path):
    """`python -m loaderx`, statically linked into the extension with
    minizip and zlib: a .npz through import, info and verify."""
    np.savez_compressed(tmp_path / "arrays.npz",
                        x=np.arange(600, dtype="<f4").reshape(100, 6))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "loaderx", *args],
                              cwd=tmp_path, capture_output=True, check=True,
                              text=True)

    run("import", "arrays.npz", "stores")
    info = json.loads(run("info", "--json", "stores/x").stdout)
    assert (info["records"], info["item_shape"]) == (100, [6])
    assert json.loads(run("verify", "--json", "stores/x").stdout)["ok"]
