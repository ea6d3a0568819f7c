"""The typed persistent record stores: DenseStore and RaggedStore.

    with DenseStore('train_data', data.dtype, data.shape[1:]) as ds:
        ds.append(data)                  # one record per slice along axis 0
    ds = DenseStore('train_data')        # open: the identity is persisted
    ds[0, 5, 2]                          # (3, *item_shape), a record set

    with RaggedStore('tokens', np.int32) as rs:
        rs.append(seqs)                  # each record keeps its own shape
    RaggedStore('tokens')[0, 2]          # list of arrays, exact shapes

A store is a directory. Creating one fixes its type identity (dtype and,
for dense stores, item_shape) and its codec ("raw", "zstd" — the default —
or "zstd_dict" with `dict_bytes`). Reads and deletions take an int
(negatives wrap), a slice, a tuple or list of ints, an int array or a
boolean mask. One store object holds the directory's lock: a second opening
raises BlockingIOError until it is closed. `close()` (or leaving a `with`
block) syncs, then releases the store.
"""

import os

import numpy as np

from loaderx import loaderx_native as _native
from loaderx.vfs import Vfs

CODECS = ("raw", "zstd", "zstd_dict")

_default_vfs = None


def _resolve_vfs(vfs):
    global _default_vfs
    if vfs is not None:
        return vfs
    if _default_vfs is None:
        _default_vfs = Vfs("posix")
    return _default_vfs


def _prepare_create(path, vfs, codec, dict_bytes):
    if codec not in CODECS:
        raise ValueError(f"codec must be one of {CODECS}, got {codec!r}")
    if codec == "zstd_dict" and not dict_bytes:
        raise ValueError("codec 'zstd_dict' needs dict_bytes: train a "
                         "dictionary with loaderx.utils.train_dict first")
    if codec != "zstd_dict" and dict_bytes:
        raise ValueError(f"codec {codec!r} takes no dict_bytes")
    if vfs.name == "posix":
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
    return bytes(dict_bytes or b"")


def _indices(key, length):
    """`key` as (int64 index array, whether it selected a single record)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        index = int(key)
        if not -length <= index < length:
            raise IndexError(f"index {index} is out of range for {length} records")
        return np.array([index % length], dtype=np.int64), True
    if isinstance(key, slice):
        return np.arange(*key.indices(length), dtype=np.int64), False
    if isinstance(key, tuple):
        key = list(key)
    array = np.asarray(key)
    if array.dtype == np.bool_:
        if array.shape != (length,):
            raise IndexError(f"a boolean mask must have shape ({length},), "
                             f"got {array.shape}")
        return np.flatnonzero(array).astype(np.int64), False
    if array.size == 0:
        return np.empty(0, dtype=np.int64), False
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise TypeError("records are selected by an int, a slice, a sequence "
                        f"of ints or a boolean mask, not {key!r}")
    array = array.astype(np.int64)
    bad = (array < -length) | (array >= length)
    if bad.any():
        raise IndexError(f"index {int(array[bad][0])} is out of range for "
                         f"{length} records")
    return np.where(array < 0, array + length, array), False


class _Store:
    """What both stores share: lifetime, maintenance and statistics."""

    def __len__(self):
        return self._native.size()

    @property
    def path(self):
        return self._path

    @property
    def codec(self):
        return self._native.codec()

    def delete(self, key):
        """Deletes records (swap-last: survivors are renumbered, the index
        space stays 0..len)."""
        indices, _ = _indices(key, len(self))
        self._native.delete_records(np.ascontiguousarray(indices))

    def stats(self):
        s = self._native.stats()
        return {"records": s.records, "live_bytes": s.live_bytes,
                "chunk_bytes": s.chunk_bytes, "reclaimable": s.reclaimable}

    def compact(self):
        """Reclaims deleted bytes in place (offline: nothing else may use
        the store meanwhile)."""
        self._native.compact()

    def sync(self):
        """Makes everything appended so far durable."""
        self._native.sync()

    def close(self, sync=True):
        """Syncs (unless `sync=False`: durability left to a later sync or
        the OS), then releases the store and its lock. Idempotent."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        try:
            if sync:
                self._native.sync()
        finally:
            self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


class DenseStore(_Store):
    """Fixed-shape records: every record is one `item_shape` array."""

    def __init__(self, path, dtype=None, item_shape=None, codec="zstd",
                 dict_bytes=None, vfs=None):
        self._path = os.fspath(path)
        vfs = _resolve_vfs(vfs)
        if dtype is None:
            if item_shape is not None:
                raise ValueError("item_shape needs a dtype (creating a store)")
            self._native = _native.DenseStoreHandle(vfs._fs, self._path)
        else:
            dtype = np.dtype(dtype)
            item_shape = tuple(int(d) for d in (item_shape or ()))
            dictionary = _prepare_create(self._path, vfs, codec, dict_bytes)
            self._native = _native.DenseStoreHandle(
                vfs._fs, self._path, dtype.str, list(item_shape), codec,
                dictionary)
        self._dtype = np.dtype(self._native.dtype())
        self._item_shape = tuple(self._native.item_shape())

    @property
    def dtype(self):
        return self._dtype

    @property
    def item_shape(self):
        return self._item_shape

    def append(self, array):
        """Appends one record per slice of `array` along axis 0 and returns
        the index of the first."""
        array = np.asarray(array)
        if array.dtype != self._dtype:
            raise ValueError(f"dtype {array.dtype} does not match the "
                             f"store's {self._dtype}")
        if array.ndim < 1 or array.shape[1:] != self._item_shape:
            raise ValueError(f"shape {array.shape} is not (n, *{self._item_shape})")
        if array.shape[0] == 0:
            raise ValueError("an append needs at least one record")
        return self._native.append(np.ascontiguousarray(array))

    def __getitem__(self, key):
        indices, single = _indices(key, len(self))
        out = np.empty((len(indices),) + self._item_shape, dtype=self._dtype)
        if len(indices):
            self._native.gather_into(indices, out)
        return out[0] if single else out

    def __repr__(self):
        return (f"DenseStore({self._path!r}, dtype={self._dtype}, "
                f"item_shape={self._item_shape}, records={len(self)})")


class RaggedStore(_Store):
    """Variable-shape records of one dtype; reads return lists of arrays."""

    def __init__(self, path, dtype=None, codec="zstd", dict_bytes=None,
                 vfs=None):
        self._path = os.fspath(path)
        vfs = _resolve_vfs(vfs)
        if dtype is None:
            self._native = _native.RaggedStoreHandle(vfs._fs, self._path)
        else:
            dictionary = _prepare_create(self._path, vfs, codec, dict_bytes)
            self._native = _native.RaggedStoreHandle(
                vfs._fs, self._path, np.dtype(dtype).str, codec, dictionary)
        self._dtype = np.dtype(self._native.dtype())

    @property
    def dtype(self):
        return self._dtype

    def append(self, records):
        """Appends each array in `records` (any iterable) with its own
        shape, in one commit; returns the index of the first."""
        arrays = []
        for i, record in enumerate(records):
            array = np.asarray(record)
            if array.dtype != self._dtype:
                raise ValueError(f"record {i}: dtype {array.dtype} does not "
                                 f"match the store's {self._dtype}")
            if array.size == 0:
                raise ValueError(f"record {i} is empty (shape {array.shape}); "
                                 "zero-byte arrays cannot be stored")
            # (np.ascontiguousarray would turn a scalar into shape (1,).)
            arrays.append(np.require(array, requirements="C"))
        if not arrays:
            raise ValueError("an append needs at least one record")
        sizes = np.array([a.nbytes for a in arrays], dtype=np.int64)
        shapes = np.array([n for a in arrays for n in (a.ndim, *a.shape)],
                          dtype=np.int64)
        data = np.concatenate([a.reshape(-1).view(np.uint8) for a in arrays])
        return self._native.append_packed(data, sizes, shapes)

    def __getitem__(self, key):
        indices, single = _indices(key, len(self))
        if not len(indices):
            return []
        flat = self._native.shapes(indices)
        shapes, position = [], 0
        for _ in range(len(indices)):
            ndim = flat[position]
            shapes.append(tuple(flat[position + 1:position + 1 + ndim]))
            position += 1 + ndim
        itemsize = self._dtype.itemsize
        sizes = np.array([int(np.prod(s, dtype=np.int64)) * itemsize
                          for s in shapes], dtype=np.int64)
        out = np.empty(int(sizes.sum()), dtype=np.uint8)
        self._native.gather_packed(indices, sizes, out)
        records, offset = [], 0
        for shape, size in zip(shapes, sizes):
            records.append(out[offset:offset + size].view(self._dtype).reshape(shape))
            offset += size
        return records[0] if single else records

    def __repr__(self):
        return (f"RaggedStore({self._path!r}, dtype={self._dtype}, "
                f"records={len(self)})")
