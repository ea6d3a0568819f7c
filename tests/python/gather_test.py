"""`store.gather(indices, out)`: records written into the caller's buffer.

Every form of `out` it takes (numpy arrays of any dtype with the right
byte size, buffer-protocol objects, CPU torch tensors) receives exactly the
bytes `store[indices]` returns, and is returned itself; every wrong `out`
or index raises before a byte of it changes.
"""

import mmap

import numpy as np
import pytest

from loaderx.zrecord import DenseStore, RaggedStore

RECORDS = np.arange(50 * 6, dtype=np.float32).reshape(50, 2, 3)
INDICES = np.array([7, 0, 49, 7, 3])


@pytest.fixture(params=["raw", "zstd"])
def store(tmp_path, request):
    with DenseStore(tmp_path / "s", RECORDS.dtype, (2, 3),
                    codec=request.param) as s:
        s.append(RECORDS)
    with DenseStore(tmp_path / "s") as s:
        yield s


def test_fills_a_numpy_array_and_returns_it(store):
    out = np.full((5, 2, 3), -1, np.float32)
    assert store.gather(INDICES, out) is out
    np.testing.assert_array_equal(out, RECORDS[INDICES])


def test_without_out_returns_what_indexing_returns(store):
    np.testing.assert_array_equal(store.gather(INDICES), store[INDICES])
    np.testing.assert_array_equal(store.gather([1, -1]), RECORDS[[1, -1]])


def test_any_dtype_with_the_right_byte_size(store):
    out = np.zeros(5 * RECORDS[0].nbytes, np.uint8)
    store.gather(INDICES, out)
    assert out.tobytes() == RECORDS[INDICES].tobytes()


def test_buffer_protocol_objects(store):
    size = 5 * RECORDS[0].nbytes
    for out in (bytearray(size), memoryview(bytearray(size)),
                mmap.mmap(-1, size)):
        assert store.gather(INDICES, out) is out
        assert bytes(out) == RECORDS[INDICES].tobytes()


def test_boolean_mask(store):
    mask = np.zeros(len(RECORDS), bool)
    mask[[3, 8, 40]] = True
    out = np.empty((3, 2, 3), np.float32)
    store.gather(mask, out)
    np.testing.assert_array_equal(out, RECORDS[mask])


def test_torch_cpu_tensor_is_filled_in_place(store):
    torch = pytest.importorskip("torch")
    out = torch.full((5, 2, 3), -1.0)
    pointer = out.data_ptr()
    assert store.gather(INDICES, out) is out
    assert out.data_ptr() == pointer
    np.testing.assert_array_equal(out.numpy(), RECORDS[INDICES])


def unchanged_after(store, out, indices, error):
    before = out.copy()
    with pytest.raises(error):
        store.gather(indices, out)
    np.testing.assert_array_equal(out, before)


def test_wrong_size_is_refused_and_writes_nothing(store):
    unchanged_after(store, np.full((4, 2, 3), -1, np.float32), INDICES,
                    ValueError)
    unchanged_after(store, np.full((6, 2, 3), -1, np.float32), INDICES,
                    ValueError)


def test_out_of_range_index_writes_nothing(store):
    unchanged_after(store, np.full((2, 2, 3), -1, np.float32), [0, 50],
                    IndexError)


def test_read_only_strided_and_non_buffers_are_refused(store):
    read_only = np.zeros((5, 2, 3), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        store.gather(INDICES, read_only)
    with pytest.raises(ValueError, match="read-only"):
        store.gather(INDICES, bytes(5 * RECORDS[0].nbytes))
    strided = np.zeros((10, 2, 3), np.float32)[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        store.gather(INDICES, strided)
    assert not strided.any()
    with pytest.raises(TypeError, match="buffer protocol"):
        store.gather(INDICES, [0.0] * 30)


def test_ragged_store_has_no_gather(tmp_path):
    with RaggedStore(tmp_path / "r", np.int32) as ragged:
        ragged.append([np.arange(3, dtype=np.int32)])
        with pytest.raises(TypeError, match="own shape"):
            ragged.gather([0], bytearray(12))
