"""The typed persistent record stores: DenseStore and RaggedStore, with
loaderx 1.7.7's API (code written for it runs unchanged) over loaderx's
engine, whose files are 1.7.7's byte for byte.

    ds = DenseStore('train_data', data.dtype, data.shape[1:])  # open or create
    ds.append(data)                      # one record per slice along axis 0
    ds[0, 5, 2]                          # (3, *item_shape): a record set
    ds.close()

    rs = RaggedStore('tokens', np.int32, codec='raw')
    rs.append(seqs)                      # each record keeps its own shape
    rs[0, 2]                             # a list of arrays, exact shapes

Both constructors open the store at `path` if there is one, checking any
given dtype, item_shape and codec against it (ValueError on a mismatch; a
dict_bytes is ValueError too: only a creation takes one), and otherwise
create it, which needs the dtype (and item_shape for dense): without them a
missing store is FileNotFoundError. The codec ("raw", "zstd" — the default —,
"zstd_dict" with `dict_bytes` from `loaderx.utils.train_dict`, or a
registered plugin's) is fixed at creation; an unknown name is KeyError.

Reads and deletions take an int (negatives count from the end), a slice, a
tuple or list of ints, an integer array (uint64 arrays are used as they
are), or a boolean mask of the store's length. Errors are `ZrecordError`s
with 1.7.7's codes, each also the idiomatic exception: an index out of
range is code -3 and IndexError, a store held elsewhere is -14 and
BlockingIOError (see `loaderx.errors`).

Beyond 1.7.7: `vfs=` (any registered filesystem), `close(sync=False)`,
`__repr__`, dtypes (structured ones with padding included) that come
back exactly as they were written, and pickling by path (a store sent to
another process reopens there; see `_Store.__reduce__`).
"""

import math
import os
import pathlib
from collections.abc import Iterable, Sequence
from typing import Any, Literal, Self

import numpy as np
import numpy.typing as npt

from loaderx import _dtype
from loaderx import loaderx_native as _native
from loaderx._typing import RecordKey, StrPath
from loaderx.errors import IndexOutOfRangeError, ZrecordError
from loaderx.vfs import Vfs

__all__ = ["DenseStore", "RaggedStore", "ZrecordError", "DICT_TIERS"]

# Dictionary sizes for `loaderx.utils.train_dict`: how large a dictionary is,
# and how many bytes of records train it. A larger one compresses small,
# similar records better and costs more cache on every gather.
DICT_TIERS: dict[str, dict[str, int]] = {
    "fast": {"size": 32 << 10, "samples": 4 << 20},
    "balanced": {"size": 128 << 10, "samples": 16 << 20},
    "max": {"size": 1 << 20, "samples": 64 << 20},
}
DICT_TIER_DEFAULT = "balanced"

# The largest record, in bytes.
MAX_RECORD_LEN = 1 << 31

_default_vfs = None


def _resolve_vfs(vfs):
    global _default_vfs
    if vfs is not None:
        return vfs
    if _default_vfs is None:
        _default_vfs = Vfs("posix")
    return _default_vfs


def _dict_tier(tier):
    """`DICT_TIERS[tier]`, `None` meaning the default; ValueError for any
    other name (or an integer)."""
    name = DICT_TIER_DEFAULT if tier is None else tier
    if not isinstance(name, str) or name not in DICT_TIERS:
        raise ValueError(
            f"unknown dict tier {tier!r}, expected one of {sorted(DICT_TIERS)}")
    return DICT_TIERS[name]


def _sample_count(total, item_bytes, tier=None):
    """How many of `total` records of `item_bytes` fill the tier's training
    budget: at least one, at most `total`."""
    budget = _dict_tier(tier)["samples"]
    return max(1, min(total, max(1, budget // max(item_bytes, 1))))


def _bytes_of(array):
    """A C-contiguous array's bytes, as a flat uint8 view (no copy)."""
    return array.reshape(-1).view(np.uint8)


def _out_of_range(key, length):
    return IndexOutOfRangeError(
        -3, f"index {key} is out of range for {length} records")


def _indices(key, length):
    """`key` as (uint64 index array, whether it names a single record).
    Indices past the end are left for the engine to refuse."""
    if isinstance(key, (int, np.integer)):  # bool too: True is 1.
        index = int(key)
        if index < 0:
            index += length
        if not 0 <= index < 1 << 64:
            raise _out_of_range(int(key), length)
        return np.array([index], dtype=np.uint64), True
    if isinstance(key, slice):
        return np.arange(*key.indices(length), dtype=np.int64).astype(
            np.uint64), False
    array = np.asarray(key)
    if array.dtype == np.bool_:
        if array.shape != (length,):
            raise IndexOutOfRangeError(
                -3, f"a boolean mask must have shape ({length},), "
                f"not {array.shape}")
        return np.flatnonzero(array).astype(np.uint64), False
    if array.size == 0:
        return np.empty(0, dtype=np.uint64), False
    flat = array.reshape(-1)
    if array.dtype.kind == "u":
        return np.ascontiguousarray(flat, dtype=np.uint64), False
    if array.dtype.kind != "i":
        raise TypeError("records are selected by integers, a slice or a "
                        f"boolean mask, not {array.dtype} values")
    flat = flat.astype(np.int64)
    if (flat < 0).any():
        flat = np.where(flat < 0, flat + length, flat)
        if (flat < 0).any():
            raise _out_of_range(int(flat[flat < 0][0]) - length, length)
    return flat.astype(np.uint64), False


def _request(dtype, item_shape, codec, dict_bytes):
    """The constructor's arguments for the engine's open-or-create."""
    request = _native.OpenRequest()
    if dtype is not None:
        request.set_dtype(_dtype.to_identity(np.dtype(dtype)))
    if item_shape is not None:
        request.set_item_shape([int(d) for d in item_shape])
    if codec is not None:
        request.set_codec(codec)
    if dict_bytes is not None:
        request.set_dictionary(dict_bytes)
    return request


def _reopen(store_type: Any, path: str, vfs: Vfs | None) -> Any:
    """Unpickles a store: opens the one at `path` (never creates one)."""
    return store_type(path, vfs=vfs)


class _Store:
    """What both stores share: opening, maintenance, lifetime, pickling."""

    def __init__(self, handle_type: Any, path: StrPath, request: Any,
                 vfs: Vfs | None) -> None:
        self._path = pathlib.Path(path)
        self._vfs = vfs  # As given: None is the default filesystem.
        self._closed = True  # Until the native store exists.
        self._native = handle_type(_resolve_vfs(vfs)._fs, os.fspath(path),
                                   request)
        self._closed = False
        self._dtype = _dtype.from_identity(self._native.dtype())
        self._codec = self._native.codec()

    @property
    def path(self) -> pathlib.Path:
        return self._path

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._dtype

    @property
    def codec(self) -> str:
        return self._codec

    def __len__(self) -> int:
        return self._native.size()

    def __getitem__(self, key: RecordKey) -> Any:
        """One record for an int (a numpy scalar for dense scalar records);
        a record set (an ndarray for dense, a list for ragged) otherwise."""
        indices, single = _indices(key, len(self))
        records = self.__getitems__(indices)
        return records[0] if single else records

    def __getitems__(self, key: RecordKey) -> Any:
        raise NotImplementedError  # Each store's own.

    def delete(self, key: RecordKey) -> None:
        """Deletes records, any index form (duplicates count once), by
        moving the last records into their places: survivors may be
        renumbered, the index space stays 0..len."""
        indices, _ = _indices(key, len(self))
        self._native.delete_records(indices)

    def compact(self) -> None:
        """Reclaims the bytes deleted records left, in place (offline:
        nothing else may use the store meanwhile)."""
        self._native.compact()

    def stats(self) -> dict[str, int]:
        """{records, live_bytes, chunk_bytes, reclaimable}, as 1.7.7
        counts them (chunk_bytes = tail_chunk * 2^32 + tail_offset)."""
        s = self._native.stats()
        return {"records": s.records, "live_bytes": s.live_bytes,
                "chunk_bytes": s.chunk_bytes, "reclaimable": s.reclaimable}

    def sync(self) -> None:
        """Makes everything appended so far durable."""
        self._native.sync()

    def has_dict(self) -> bool:
        """Whether the store compresses against a dictionary (zstd_dict)."""
        return self._native.has_dict()

    def close(self, sync: bool = True) -> None:
        """Syncs (unless `sync=False`: durability left to a later sync or
        the OS), then releases the store and its lock. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if sync:
                self._native.sync()
        finally:
            self._native.close()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles by path: unpickling (in a spawned worker, say) opens the
        store at the same path, on a filesystem of the same name, read-write.
        The process that unpickles then holds the store's lock, so the
        pickling one must have closed its handle (else StoreBusyError, code
        -14), and one process at a time can hold it. A filesystem that lives
        in one process's memory ("memory", "fault") is a new, empty one
        there, so the store is not found."""
        return (_reopen, (type(self), os.fspath(self._path), self._vfs))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> Literal[False]:
        self.close()
        return False

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # A finaliser has no one to report to.
            pass


class DenseStore(_Store):
    """Fixed-shape records: every record is one `item_shape` array of
    `dtype`; reads gather at fixed byte offsets into one ndarray."""

    def __init__(self, path: StrPath, dtype: npt.DTypeLike | None = None,
                 item_shape: Sequence[int] | None = None,
                 codec: str | None = None, dict_bytes: bytes | None = None,
                 vfs: Vfs | None = None) -> None:
        super().__init__(_native.DenseStoreHandle, path,
                         _request(dtype, item_shape, codec, dict_bytes), vfs)
        self._item_shape = tuple(self._native.item_shape())

    @property
    def item_shape(self) -> tuple[int, ...]:
        return self._item_shape

    def append(self, records: npt.ArrayLike) -> int:
        """Appends one (batch, *item_shape) array of the store's dtype (a
        0-d value is one record); returns the index of the first."""
        batch = np.asarray(records)
        if batch.ndim == 0:
            batch = batch.reshape(1)
        if batch.dtype != self._dtype:
            raise ValueError(f"dense append dtype {batch.dtype} != store "
                             f"dtype {self._dtype}")
        if batch.shape[1:] != self._item_shape:
            raise ValueError(f"dense append shape {batch.shape} != "
                             f"(batch, *{self._item_shape})")
        if len(batch) == 0:
            raise ValueError("append needs at least one record")
        return self._native.append(_bytes_of(np.ascontiguousarray(batch)))

    def __getitems__(self, key: RecordKey) -> npt.NDArray[Any]:
        """The records at `key` (any index form) as one ndarray of shape
        (n, *item_shape)."""
        indices, _ = _indices(key, len(self))
        out = np.empty((indices.size, *self._item_shape), dtype=self._dtype)
        self._native.gather_into(indices, _bytes_of(out))
        return out

    def __repr__(self) -> str:
        return (f"DenseStore({os.fspath(self._path)!r}, dtype={self._dtype}, "
                f"item_shape={self._item_shape}, codec={self._codec!r}, "
                f"records={len(self) if not self._closed else 'closed'})")


class RaggedStore(_Store):
    """Records of one dtype whose shapes differ; reads return each with
    exactly the shape it was written with, in a list."""

    def __init__(self, path: StrPath, dtype: npt.DTypeLike | None = None,
                 codec: str | None = None, dict_bytes: bytes | None = None,
                 vfs: Vfs | None = None) -> None:
        super().__init__(_native.RaggedStoreHandle, path,
                         _request(dtype, None, codec, dict_bytes), vfs)

    def append(self,
               records: Iterable[npt.ArrayLike | bytes | bytearray]) -> int:
        """Appends every record of `records` (any iterable of arrays, or of
        bytes/bytearray in a uint8 store) in one commit; returns the index of
        the first."""
        payloads: list[npt.NDArray[np.uint8]] = []
        sizes: list[int] = []
        shapes: list[int] = []
        for record in records:
            if isinstance(record, (bytes, bytearray)):
                if self._dtype != np.dtype(np.uint8):
                    raise ValueError("bytes records are uint8, but the store "
                                     f"dtype is {self._dtype}")
                array = np.frombuffer(record, dtype=np.uint8)
            else:
                array = np.asarray(record)
                if array.dtype != self._dtype:
                    raise ValueError(f"ragged record dtype {array.dtype} != "
                                     f"store dtype {self._dtype}")
            # (np.ascontiguousarray would turn a scalar into shape (1,).)
            payloads.append(_bytes_of(np.require(array, requirements="C")))
            sizes.append(array.nbytes)
            shapes.extend((array.ndim, *array.shape))
        if not payloads:
            raise ValueError("append needs at least one record")
        return self._native.append_packed(
            np.concatenate(payloads), np.array(sizes, dtype=np.int64),
            np.array(shapes, dtype=np.int64))

    def __getitems__(self, key: RecordKey) -> list[npt.NDArray[Any]]:
        """The records at `key` (any index form) as a list of arrays, read
        in one native call."""
        indices, _ = _indices(key, len(self))
        flat, buffer = self._native.read(indices)
        data = np.frombuffer(buffer, dtype=np.uint8)
        itemsize = self._dtype.itemsize
        records, offset, at = [], 0, 0
        for _ in range(indices.size):
            rank = flat[at]
            shape = tuple(flat[at + 1:at + 1 + rank])
            at += 1 + rank
            size = math.prod(shape) * itemsize
            records.append(
                data[offset:offset + size].view(self._dtype).reshape(shape))
            offset += size
        return records

    def __repr__(self) -> str:
        return (f"RaggedStore({os.fspath(self._path)!r}, dtype={self._dtype}, "
                f"codec={self._codec!r}, "
                f"records={len(self) if not self._closed else 'closed'})")
