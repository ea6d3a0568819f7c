"""Hostile input across the public Python API: every bad argument is a
clean exception and leaves the store as it was; nothing crashes.

Cases that reach native code with arguments a binding could mishandle
(raw wrapper calls, buffers after a failed conversion, a close racing
gathers) run in a child interpreter, so a segfault fails that case instead
of killing pytest. The rest run in process and compare the store's files
before and after.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.errors import IndexOutOfRangeError
from loaderx.typed_store import TypedStore
from loaderx.vfs import Vfs
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler

_CHILD_TIMEOUT = 180  # Seconds; each child needs a few.
_N = 10  # Records in every test store.

_INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64,
                 np.uint8, np.uint16, np.uint32, np.uint64]


def _dense(path):
    data = np.arange(_N * 3, dtype=np.float32).reshape(_N, 3)
    store = DenseStore(path, np.float32, (3,), codec="raw")
    store.append(data)
    store.sync()
    return store, data


def _ragged(path):
    records = [np.full(n + 1, n, dtype=np.int16) for n in range(_N)]
    store = RaggedStore(path, np.int16, codec="raw")
    store.append(records)
    store.sync()
    return store, records


def _files(path):
    return {name: (path / name).read_bytes() for name in sorted(os.listdir(path))}


@pytest.fixture(params=["dense", "ragged"])
def store(request, tmp_path):
    """(store, its records as a list, its directory)."""
    path = tmp_path / request.param
    store, data = (_dense if request.param == "dense" else _ragged)(path)
    yield store, list(data), path
    store.close()


def _assert_unchanged(store, records, path, files):
    assert len(store) == len(records)
    for got, want in zip(store[np.arange(len(records))], records):
        np.testing.assert_array_equal(got, want)
    assert _files(path) == files


# ---------------------------------------------------------------------------
# Indices.

def _out_of_range_arrays():
    """Index arrays of every integer dtype naming a record past the end (or
    before the start), each with a valid index beside it."""
    cases = []
    for dtype in _INDEX_DTYPES:
        info = np.iinfo(dtype)
        cases.append(np.array([0, info.max], dtype=dtype))
        if info.min < 0:
            cases.append(np.array([0, info.min], dtype=dtype))
            cases.append(np.array([0, -_N - 1], dtype=dtype))
    cases.append(np.array([0, 2**64 - 3], dtype=np.uint64))
    cases.append(np.array([0, 2**63], dtype=np.uint64))
    cases.append(np.array([[0, 1], [2, _N]], dtype=np.int64))  # 2-D.
    return cases


_HUGE_INTS = [_N, -_N - 1, 2**63 - 1, 2**63, 2**64 - 3, 2**64 - 1, 2**64,
              -(2**63), -(2**63) - 1, 2**100, -(2**100)]


@pytest.mark.parametrize("indices", _out_of_range_arrays(),
                         ids=lambda a: f"{a.dtype}{a.tolist()}")
def test_out_of_range_index_arrays_raise_and_change_nothing(store, indices):
    store, records, path = store
    files = _files(path)
    for call in (store.__getitem__, store.__getitems__, store.delete):
        with pytest.raises(IndexError):
            call(indices)
    _assert_unchanged(store, records, path, files)


@pytest.mark.parametrize("index", _HUGE_INTS)
def test_out_of_range_python_ints_raise_and_change_nothing(store, index):
    store, records, path = store
    files = _files(path)
    for key in (index, [0, index], (index,), np.int64(index)
                if -(2**63) <= index < 2**63 else [index]):
        for call in (store.__getitem__, store.__getitems__, store.delete):
            with pytest.raises(IndexOutOfRangeError):
                call(key)
    _assert_unchanged(store, records, path, files)


@pytest.mark.parametrize("dtype", _INDEX_DTYPES)
def test_valid_indices_of_every_dtype_select_the_same_records(store, dtype):
    store, records, _ = store
    picks = np.array([0, 3, _N - 1], dtype=dtype)
    for got, want in zip(store.__getitems__(picks), [records[i] for i in (0, 3, _N - 1)]):
        np.testing.assert_array_equal(got, want)
    if np.iinfo(dtype).min < 0:
        got = store.__getitems__(np.array([-1, -_N], dtype=dtype))
        np.testing.assert_array_equal(got[0], records[-1])
        np.testing.assert_array_equal(got[1], records[0])


def test_non_contiguous_and_mask_indices(store):
    store, records, path = store
    strided = np.arange(_N, dtype=np.int64)[::3]
    for got, i in zip(store[strided], strided):
        np.testing.assert_array_equal(got, records[i])
    mask = np.zeros(_N, dtype=bool)
    mask[[1, 4]] = True
    for got, i in zip(store[mask], (1, 4)):
        np.testing.assert_array_equal(got, records[i])
    files = _files(path)
    for bad_mask in (np.ones(_N + 1, bool), np.ones(_N - 1, bool),
                     np.ones((2, _N), bool), np.ones((_N, 1), bool)):
        for call in (store.__getitem__, store.delete):
            with pytest.raises(IndexError):
                call(bad_mask)
    _assert_unchanged(store, records, path, files)


@pytest.mark.parametrize("key", [
    None, 1.5, "0", b"0", object(), np.array([1.0]), np.array(["a"]),
    [0, None], [0.5], np.array([1 + 2j]), {0: 1},
], ids=repr)
def test_keys_that_are_not_indices_raise_type_or_index_errors(store, key):
    store, records, path = store
    files = _files(path)
    for call in (store.__getitem__, store.__getitems__, store.delete):
        with pytest.raises((TypeError, IndexError, ValueError)):
            call(key)
    _assert_unchanged(store, records, path, files)


# ---------------------------------------------------------------------------
# Appends.

def test_bad_dense_appends_raise_and_change_nothing(tmp_path):
    store, data = _dense(tmp_path / "d")
    files = _files(tmp_path / "d")
    for bad in (np.zeros((2, 4), np.float32),          # Wrong item shape.
                np.zeros((2, 3), np.float64),          # Wrong dtype.
                np.zeros((0, 3), np.float32),          # No records.
                np.zeros((2, 3, 1), np.float32),
                np.array([None, None], dtype=object),
                None, "text", b"bytes", [[1, 2], [3]]):
        with pytest.raises((ValueError, TypeError)):
            store.append(bad)
    _assert_unchanged(store, list(data), tmp_path / "d", files)
    # A non-contiguous batch is appended as its values.
    batch = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
    assert store.append(batch) == _N
    np.testing.assert_array_equal(store[_N, _N + 1], batch)
    store.close()


def test_bad_ragged_appends_raise_and_change_nothing(tmp_path):
    store, records = _ragged(tmp_path / "r")
    files = _files(tmp_path / "r")
    for bad in ([np.zeros(0, np.int16)],                 # An empty record.
                [np.zeros(2, np.int32)],                 # Wrong dtype.
                [np.zeros(2, np.int16), np.zeros(2, np.float64)],
                [b"\x00\x01"],                           # Bytes: uint8 only.
                [None], [object()], None, 5,
                [np.array([None], dtype=object)]):
        with pytest.raises((ValueError, TypeError)):
            store.append(bad)
    _assert_unchanged(store, records, tmp_path / "r", files)
    store.close()


def test_bad_constructor_arguments_raise(tmp_path):
    for kwargs in ({"dtype": "not a dtype", "item_shape": (2,)},
                   {"dtype": np.float32, "item_shape": (-1,)},
                   {"dtype": np.float32, "item_shape": (2**64,)},
                   {"dtype": np.float32, "item_shape": None},
                   {"dtype": np.float32, "item_shape": (2,), "codec": "nope"},
                   {"dtype": np.float32, "item_shape": (2,), "level": 2**40},
                   {"dtype": object, "item_shape": (2,)}):
        with pytest.raises((ValueError, TypeError, KeyError, OverflowError,
                            FileNotFoundError)):
            DenseStore(tmp_path / "bad", **kwargs)
    with pytest.raises(TypeError):
        DenseStore(None)  # type: ignore[arg-type]
    with pytest.raises((TypeError, KeyError)):
        TypedStore(tmp_path / "t", 5, np.float32, (2,))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Closed stores.

def test_every_call_on_a_closed_store_raises_cleanly(store):
    store, records, path = store
    store.close()
    store.close()  # Idempotent.
    for call in (lambda: len(store), lambda: store[0],
                 lambda: store.__getitems__([0]), lambda: store.delete(0),
                 lambda: store.append(records[:1]), store.compact,
                 store.stats, store.sync, store.verify, store.has_dict):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    assert "closed" in repr(store)


# ---------------------------------------------------------------------------
# Sampler and loader.

@pytest.mark.parametrize("step", [2**64, -1, 2**100, None, 1.5, "3"])
def test_bad_steps_raise(step):
    sampler = Sampler(10, 2, 1, 0)
    for call in (sampler.seek, sampler.batch):
        with pytest.raises((OverflowError, TypeError, ValueError)):
            call(step)
    assert sampler.step == 0


@pytest.mark.parametrize("args", [
    (2**64, 2, 0, 0), (-1, 2, 0, 0), (10, -1, 0, 0), (10, 2, 9, 0),
    (10, 2, 0, 2**64), (10, 2, 0, -1), (None, 2, 0, 0),
])
def test_bad_sampler_arguments_raise(args):
    with pytest.raises((OverflowError, TypeError, ValueError)):
        Sampler(*args)


def test_bad_loader_seeks_raise_and_the_loader_still_works(tmp_path):
    store, data = _dense(tmp_path / "d")
    with DataLoader({"x": store}, num_workers=1, batch_size=2, mode=0) as loader:
        for step in (2**64, -1, None, 1.5):
            with pytest.raises((OverflowError, TypeError, ValueError)):
                loader.seek(step)
        np.testing.assert_array_equal(next(loader)["x"], data[:2])
    store.close()


def test_bad_vfs_arguments_raise(tmp_path):
    vfs = Vfs("posix")
    with pytest.raises((KeyError, ValueError)):
        Vfs("no-such-filesystem")
    for call in (lambda: vfs.exists(None), lambda: vfs.read_file(5),
                 lambda: vfs.write_file(tmp_path / "f", "text"),
                 lambda: vfs.write_file(tmp_path / "f", None),
                 lambda: vfs.read_file(tmp_path / "missing")):
        with pytest.raises((TypeError, FileNotFoundError, OSError)):
            call()


# A NUL would end the name for the C library ("a\\0b" would become "a"):
# every way a path reaches the engine refuses it with ValueError, as
# Python's own `os` functions do, and nothing is created or opened under
# the cut name.
@pytest.mark.parametrize("vfs_name", ["posix", "memory"])
def test_a_nul_in_a_path_is_value_error_and_creates_nothing(tmp_path,
                                                              vfs_name):
    vfs = Vfs(vfs_name)
    root = tmp_path if vfs_name == "posix" else "/root"
    if vfs_name == "memory":
        vfs.create_directory(root)
    existing = DenseStore(f"{root}/a", np.uint8, (2,), codec="raw", vfs=vfs)
    existing.append(np.zeros((3, 2), dtype=np.uint8))
    existing.close()
    before = vfs.list(root)
    for make in (
            lambda: DenseStore(f"{root}/a\0b", np.uint8, (2,), vfs=vfs),
            lambda: DenseStore(f"{root}/a\0b", vfs=vfs),
            lambda: DenseStore(f"{root}/a\0b", vfs=vfs, read_only=True),
            lambda: DenseStore(f"{root}/n\0b", np.uint8, (2,), vfs=vfs),
            lambda: RaggedStore(f"{root}/r\0b", np.int16, vfs=vfs),
            lambda: TypedStore(f"{root}/t\0b", "dense", np.uint8, (2,),
                               vfs=vfs),
            lambda: vfs.create_directory(f"{root}/d\0b"),
            lambda: vfs.write_file(f"{root}/f\0b", b"x"),
            lambda: vfs.exists(f"{root}/a\0b")):
        with pytest.raises(ValueError, match="NUL byte"):
            make()
    assert vfs.list(root) == before == ["a"]
    store = DenseStore(f"{root}/a", vfs=vfs, read_only=True)
    assert len(store) == 3
    store.close()


# ---------------------------------------------------------------------------
# In a child process: raw native calls and races.

def _run_child(tmp_path, body):
    """Runs `_CHILD_PRELUDE` and then `body` in a fresh interpreter with
    this one's import path; it must print DONE. A crash (a signal) fails
    the test with its output."""
    script = tmp_path / "child.py"
    script.write_text(_CHILD_PRELUDE + textwrap.dedent(body) +
                      "\nprint('DONE')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, str(script), str(tmp_path)],
                            capture_output=True, text=True, env=env,
                            timeout=_CHILD_TIMEOUT, check=False)
    assert result.returncode == 0 and "DONE" in result.stdout, (
        f"child exited with {result.returncode}\n{result.stdout}\n"
        f"{result.stderr}")


_CHILD_PRELUDE = """
import sys, threading
import numpy as np
from loaderx import loaderx_native as native
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.vfs import Vfs
root = sys.argv[1]

# What a bad argument may raise: any clean Python exception (the point is
# that the process survives it).
CLEAN = (TypeError, ValueError, OverflowError, BufferError, IndexError)

def expect(errors, call, *args):
    try:
        call(*args)
    except errors:
        return
    raise AssertionError(f"{call} {args!r} did not raise {errors}")
"""


def test_a_buffer_argument_after_a_failed_conversion_is_not_released(
        tmp_path):
    # The failing argument comes before a buffer argument, so the wrapper
    # cleans up a buffer it never acquired.
    _run_child(tmp_path, """
    sampler = native.IndexSampler(10, 2, 0, 0)
    out = np.zeros(2, np.uint64)
    for step in (2**64, -1, None, "x", 2**200):
        for _ in range(200):
            expect(CLEAN, sampler.batch_into, step, out)
    expect(CLEAN, sampler.next_into, b"read-only bytes")
    expect(CLEAN, sampler.next_into, None)
    expect(ValueError, sampler.next_into, np.zeros(1, np.uint64))
    expect(CLEAN, sampler.next_into,
           np.zeros(8, np.uint64)[::2])
    store = DenseStore(root + "/d", np.float32, (3,), codec="raw")
    store.append(np.zeros((4, 3), np.float32))
    handle = store._native
    good = np.zeros(12, np.float32)
    for _ in range(200):
        expect(CLEAN, handle.gather_into, None, good)
        expect(CLEAN, handle.gather_into, np.array([0.5]), good)
        expect(CLEAN, handle.gather_into, np.zeros(2, np.int32), good)
        expect(CLEAN, handle.gather_into, np.zeros(2, np.uint64), b"ro")
        expect(CLEAN, handle.gather_into,
               np.zeros(2, np.uint64), np.zeros(24, np.float32)[::2])
        expect(CLEAN, handle.append_array, 5, [1, 3], good)
        expect(CLEAN, handle.append_array, "<f4", [2**65], good)
        expect(CLEAN, handle.append_array, "<f4", None, good)
        expect(CLEAN, handle.append_records, [("<f4", [3], None)])
        expect(CLEAN, handle.append_records, [("<f4", None, good)])
        expect(CLEAN, native.train_zstd_dictionary, None, b"", 10)
        expect(CLEAN, native.train_zstd_dictionary,
               b"abc", np.zeros(1, np.int64), 2**64)
    expect(ValueError, handle.gather_into, np.zeros(2, np.uint64),
           np.zeros(5, np.float32))
    expect(ValueError, handle.append_array, "<f4", [1, 3], np.zeros(2, np.float32))
    expect(ValueError, native.train_zstd_dictionary, b"abc",
           np.zeros(3, np.uint8), 100)
    expect(ValueError, native.train_zstd_dictionary, b"abc",
           np.array([5], np.int64), 100)
    expect(ValueError, native.train_zstd_dictionary, b"abc",
           np.array([-1], np.int64), 100)
    assert len(store) == 4
    store.close()
    """)


def test_raw_wrappers_refuse_a_null_object(tmp_path):
    _run_child(tmp_path, """
    for call in (lambda: native.StoreHandle.size(None),
                 lambda: native.StoreHandle.close(None),
                 lambda: native.StoreHandle.verify(None),
                 lambda: native.IndexSampler.step(None),
                 lambda: native.IndexSampler.next_into(None, np.zeros(2, np.uint64)),
                 lambda: native.Filesystem.exists(None, "/"),
                 lambda: native.FileLock.close(None)):
        expect(TypeError, call)
    """)


def test_close_from_another_thread_while_threads_gather(tmp_path):
    # Every gather either completes with the right records or raises
    # "the store is closed"; the close waits for the ones in flight.
    _run_child(tmp_path, """
    data = np.arange(200 * 16, dtype=np.float32).reshape(200, 16)
    with DenseStore(root + "/d", np.float32, (16,), codec="zstd") as store:
        store.append(data)
    with RaggedStore(root + "/r", np.float32, codec="zstd") as store:
        store.append(list(data))
    failures = []

    def gather_until_closed(store, start):
        indices = np.arange(200)
        try:
            while True:
                got = store[indices]
                for row, want in zip(got, data):
                    if not np.array_equal(row, want):
                        failures.append("wrong records")
                        return
        except RuntimeError as error:
            if "closed" not in str(error):
                failures.append(repr(error))
        except Exception as error:
            failures.append(repr(error))

    for round in range(20):
        for cls, name in ((DenseStore, "/d"), (RaggedStore, "/r")):
            store = cls(root + name, read_only=(round % 2 == 1))
            threads = [threading.Thread(target=gather_until_closed,
                                        args=(store, t)) for t in range(3)]
            for thread in threads:
                thread.start()
            threading.Event().wait(0.002 * (round % 5))
            store.close()
            for thread in threads:
                thread.join(timeout=60)
                assert not thread.is_alive(), "a gather hung after close"
    assert not failures, failures[:5]
    """)


def test_delete_verify_and_close_race_gathers_without_crashing(tmp_path):
    _run_child(tmp_path, """
    store = DenseStore(root + "/d", np.int64, (4,), codec="raw")
    store.append(np.arange(4000, dtype=np.int64).reshape(1000, 4))
    errors = []

    def reader():
        try:
            while True:
                n = len(store)
                rows = store[np.arange(0, n, 7)]
                # Every row is some record: four consecutive values.
                if not (np.diff(rows, axis=1) == 1).all():
                    errors.append("torn record")
                store.verify()
        except (RuntimeError, IndexError) as error:
            if "closed" not in str(error) and not isinstance(error, IndexError):
                errors.append(repr(error))

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    for i in range(100):
        store.delete([i, 500 + i])
        store.append(np.arange(4 * i, 4 * i + 8, dtype=np.int64).reshape(2, 4))
    store.compact()
    store.close()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert not errors, errors[:5]
    """)
