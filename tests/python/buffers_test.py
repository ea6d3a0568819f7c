"""Large batch reads come back in recycled, pre-faulted, page-aligned
buffers: the same arrays as before (dtype, shape, values, writable), and a
buffer is reused only once nothing refers to it any more."""

import resource

import numpy as np
import pytest

from loaderx import _buffers
from loaderx.zrecord import DenseStore, RaggedStore

SHAPE = (64, 64)  # 4 KiB records: a 256-record batch is 1 MiB.


def store_of(tmp_path, count=600):
    data = (np.arange(count * 4096, dtype=np.uint64) % 251).astype(
        np.uint8).reshape(count, *SHAPE)
    store = DenseStore(tmp_path / "s", np.uint8, SHAPE)
    store.append(data)
    return store, data


def test_large_batches_are_the_same_arrays(tmp_path):
    store, data = store_of(tmp_path)
    index = np.arange(0, 512, 2)
    got = store[index]
    assert isinstance(got, np.ndarray) and got.dtype == np.uint8
    assert got.shape == (256, *SHAPE) and got.flags.c_contiguous
    assert got.flags.writeable and got.ctypes.data % 4096 == 0
    np.testing.assert_array_equal(got, data[index])
    got[0, 0, 0] ^= 1  # Writable, and a copy: the store is untouched.
    np.testing.assert_array_equal(store[index][0], data[index[0]])
    small = store[[1, 2]]
    np.testing.assert_array_equal(small, data[[1, 2]])
    store.close()


def test_a_buffer_is_reused_only_when_nothing_refers_to_it(tmp_path):
    store, data = store_of(tmp_path)
    first = store[np.arange(256)]
    address = first.ctypes.data
    view = first[10:20]
    del first
    second = store[np.arange(256, 512)]  # The view still holds the first.
    assert second.ctypes.data != address
    np.testing.assert_array_equal(view, data[10:20])
    np.testing.assert_array_equal(second, data[256:512])
    del view
    third = store[np.arange(100, 356)]
    assert third.ctypes.data == address  # Recycled: nothing held it.
    np.testing.assert_array_equal(third, data[100:356])
    np.testing.assert_array_equal(second, data[256:512])
    store.close()


def test_free_buffers_of_another_size_make_room(tmp_path):
    store, data = store_of(tmp_path)
    # Fill the pool with buffers of one size, all held at once, then free.
    held = [store[np.arange(k, k + 256)] for k in range(_buffers.MAX_POOLED)]
    del held
    # A new size evicts free buffers instead of going unpooled for good.
    first = store[np.arange(128)]
    assert any(len(m) == first.nbytes for m in _buffers._pool)
    np.testing.assert_array_equal(first, data[:128])
    store.close()


def test_recycled_reads_do_not_fault_their_pages_in(tmp_path):
    store, _ = store_of(tmp_path)
    index = np.arange(256)
    store[index]  # Makes the pooled buffer.
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        store[index]
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # 20 fresh 1 MiB arrays would fault 20 * 256 pages in.
    assert faults < 20 * 256 // 4, faults
    store.close()


def test_small_results_are_plain_numpy_arrays():
    out = _buffers.empty((4, 3), np.float32)
    assert out.flags.owndata and out.shape == (4, 3)


def ragged_store_of(tmp_path, count=40):
    """Records of 32-48 KiB, so a 64-record batch is 2-3 MiB."""
    rng = np.random.default_rng(5)
    records = [np.full((rng.integers(32, 49), 1024), i, np.uint8)
               for i in range(count)]
    store = RaggedStore(tmp_path / "r", np.uint8)
    store.append(records)
    return store, records


def test_ragged_batches_share_recycled_buffers(tmp_path):
    store, records = ragged_store_of(tmp_path)
    rng = np.random.default_rng(6)
    plans = [rng.integers(0, len(records), 64) for _ in range(12)]
    got = store[plans[0]]
    address = got[0].ctypes.data
    assert address % 4096 == 0
    view = got[3]
    del got
    held = store[plans[1]]  # `view` holds the first buffer.
    assert held[0].ctypes.data != address
    np.testing.assert_array_equal(view, records[plans[0][3]])
    del view, held
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for plan in plans[2:]:
        got = store[plan]
        for array, index in zip(got, plan):
            np.testing.assert_array_equal(array, records[index])
        assert got[0].flags.writeable
        del got
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # 10 fresh 2-3 MiB buffers would fault 10 * 512 pages or more in.
    assert faults < 10 * 512 // 4, faults
    store.close()


def test_byte_buffers_fit_varying_sizes():
    small = _buffers.byte_buffer(100)
    assert small.dtype == np.uint8 and small.shape == (100,)
    assert small.flags.owndata
    first = _buffers.byte_buffer(3 << 20)
    assert first.shape == (3 << 20,) and first.ctypes.data % 4096 == 0
    assert len(first.base) == 4 << 20  # Rounded up to a power of two.
    address = first.ctypes.data
    del first
    second = _buffers.byte_buffer((3 << 20) + 12345)  # Fits the same one.
    assert second.ctypes.data == address and second.flags.writeable
    other = _buffers.byte_buffer(3 << 20)  # `second` holds it: a new one.
    assert other.ctypes.data != address


def test_free_buffers_of_other_sizes_make_room_in_a_full_pool():
    held = [_buffers.empty((1 << 20,), np.uint8)
            for _ in range(_buffers.MAX_POOLED)]
    assert len(_buffers._pool) == _buffers.MAX_POOLED
    del held  # Free, but of a size no longer asked for.
    first = _buffers.empty((2 << 20,), np.uint8)
    address = first.ctypes.data
    del first
    again = _buffers.empty((2 << 20,), np.uint8)
    assert again.ctypes.data == address  # Pooled, so recycled.
    assert len(_buffers._pool) <= _buffers.MAX_POOLED
    in_use = [_buffers.empty((1 << 20,), np.uint8)
              for _ in range(_buffers.MAX_POOLED)]
    # Every pooled buffer is in use: a new one is not kept.
    extra = _buffers.empty((3 << 20,), np.uint8)
    assert all(len(m) != 3 << 20 for m in _buffers._pool)
    assert extra.shape == (3 << 20,) and len(in_use) == _buffers.MAX_POOLED


def transparent_huge_pages():
    """The kernel's THP mode ("always", "madvise", "never"), or None."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return None


def smaps_entry(address):
    """The /proc/self/smaps fields of the mapping holding `address`."""
    fields, inside = {}, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and ":" not in head:
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
    return fields


def test_large_buffers_are_asked_for_huge_pages(tmp_path):
    if transparent_huge_pages() not in ("always", "madvise"):
        pytest.skip("no transparent huge pages on this kernel")
    store, data = store_of(tmp_path, count=2048)
    index = np.arange(1024)  # 4 MiB: two huge pages' worth at least.
    got = store[index]
    np.testing.assert_array_equal(got, data[index])
    entry = smaps_entry(got.ctypes.data)
    # Without the advice a "madvise"-mode kernel reports 0 here.
    assert entry.get("THPeligible") == "1", entry
    store.close()
