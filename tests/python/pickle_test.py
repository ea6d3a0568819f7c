"""Stores pickle by path and reopen where they are unpickled, so they can be
handed to spawned worker processes (multiprocessing, torch's DataLoader).

A reopened store is always read-only: read-only handles share the store's
lock, so many workers (and a read-only parent) hold it at once, while a
read-write handle open anywhere excludes them (see `TypedStore.__reduce__`).
"""

import multiprocessing
import pickle

import numpy as np
import pytest

from loaderx.errors import StoreBusyError, StoreNotFoundError
from loaderx.vfs import Vfs
from loaderx.zrecord import DenseStore, RaggedStore

_SPAWN_TIMEOUT = 120  # Seconds: a spawned child imports numpy and loaderx.


def _dense(path, **kwargs):
    data = np.arange(60, dtype=np.float32).reshape(10, 2, 3)
    with DenseStore(path, data.dtype, data.shape[1:], **kwargs) as store:
        store.append(data)
    return data


def test_a_closed_dense_store_reopens_with_its_identity(tmp_path):
    data = _dense(tmp_path / "d", codec="raw")
    store = DenseStore(tmp_path / "d")
    store.close()
    copy = pickle.loads(pickle.dumps(store))
    try:
        assert copy.path == store.path
        assert (copy.dtype, copy.item_shape, copy.codec) == (
            np.dtype(np.float32), (2, 3), "raw")
        np.testing.assert_array_equal(copy[np.arange(10)], data)
    finally:
        copy.close()


def test_a_ragged_store_reopens_with_every_record(tmp_path):
    records = [np.full((n, 2), n, dtype=np.int16) for n in (1, 4, 2)]
    with RaggedStore(tmp_path / "r", np.int16) as store:
        store.append(records)
        pickled = pickle.dumps(store)
    with pickle.loads(pickled) as copy:
        assert isinstance(copy, RaggedStore)
        for got, want in zip(copy[0, 1, 2], records):
            np.testing.assert_array_equal(got, want)


def test_unpickling_while_a_writer_holds_the_store_is_busy(tmp_path):
    _dense(tmp_path / "d")
    with DenseStore(tmp_path / "d") as store:
        pickled = pickle.dumps(store)
        with pytest.raises(StoreBusyError):
            pickle.loads(pickled)


def test_unpickled_stores_are_read_only_and_share_the_store(tmp_path):
    data = _dense(tmp_path / "d")
    with DenseStore(tmp_path / "d", read_only=True) as parent:
        pickled = pickle.dumps(parent)
        with pickle.loads(pickled) as first, pickle.loads(pickled) as second:
            assert first.read_only and second.read_only
            np.testing.assert_array_equal(first[np.arange(10)], data)
            np.testing.assert_array_equal(second[np.arange(10)], data)
            with pytest.raises(RuntimeError, match="read-only"):
                first.append(data[:1])
    # A read-write original reopens read-only too.
    store = DenseStore(tmp_path / "d")
    store.close()
    with pickle.loads(pickle.dumps(store)) as copy:
        assert copy.read_only
        with pytest.raises(RuntimeError, match="read-only"):
            copy.delete(0)
        assert len(copy) == 10


def test_unpickling_never_creates_a_store(tmp_path):
    _dense(tmp_path / "d")
    store = DenseStore(tmp_path / "d")
    store.close()
    pickled = pickle.dumps(store)
    (tmp_path / "d").rename(tmp_path / "moved")
    with pytest.raises(StoreNotFoundError):
        pickle.loads(pickled)
    assert not (tmp_path / "d").exists()


def test_the_filesystem_is_carried_by_name(tmp_path):
    _dense(tmp_path / "d", vfs=Vfs("posix"))
    store = DenseStore(tmp_path / "d", vfs=Vfs("posix"))
    store.close()
    pickled = pickle.dumps(store)
    assert b"posix" in pickled
    with pickle.loads(pickled) as copy:
        assert len(copy) == 10


def test_an_in_memory_filesystem_does_not_travel():
    memory = Vfs("memory")
    _dense("/d", vfs=memory)
    store = DenseStore("/d", vfs=memory)
    store.close()
    # Unpickling makes a new, empty "memory" filesystem.
    with pytest.raises(StoreNotFoundError):
        pickle.loads(pickle.dumps(store))


def _sum_in_child(store, queue):
    with store:  # Reopened here, at unpickling.
        queue.put(float(store[np.arange(len(store))].sum()))


def test_a_spawned_process_reads_the_store(tmp_path):
    data = _dense(tmp_path / "d")
    store = DenseStore(tmp_path / "d")
    store.close()  # The child will hold the lock.
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_sum_in_child, args=(store, queue))
    child.start()
    try:
        assert queue.get(timeout=_SPAWN_TIMEOUT) == float(data.sum())
    finally:
        child.join(timeout=_SPAWN_TIMEOUT)
    assert child.exitcode == 0


class _TorchRecords:
    """A map-style torch dataset over a store (duck-typed, so that this
    module imports without torch)."""

    def __init__(self, store):
        self.store = store
        self.length = len(store)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return self.store[index]


def test_torch_spawn_workers_share_a_read_only_store(tmp_path):
    torch = pytest.importorskip("torch")
    data = _dense(tmp_path / "d")
    # The parent keeps its read-only handle open; both workers reopen the
    # store read-only beside it.
    with DenseStore(tmp_path / "d", read_only=True) as store:
        loader = torch.utils.data.DataLoader(
            _TorchRecords(store), batch_size=2, num_workers=2,
            multiprocessing_context="spawn", timeout=_SPAWN_TIMEOUT)
        batches = [batch.numpy() for batch in loader]
        assert len(store) == 10
    np.testing.assert_array_equal(np.concatenate(batches), data)


def test_torch_spawn_workers_read_the_store(tmp_path):
    torch = pytest.importorskip("torch")
    data = _dense(tmp_path / "d")
    store = DenseStore(tmp_path / "d")
    dataset = _TorchRecords(store)
    store.close()  # A writer would exclude the worker's read-only copy.
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=4, num_workers=1,
        multiprocessing_context="spawn", timeout=_SPAWN_TIMEOUT)
    batches = [batch.numpy() for batch in loader]
    np.testing.assert_array_equal(np.concatenate(batches), data)
