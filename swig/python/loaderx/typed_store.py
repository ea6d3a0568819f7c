"""A typed store of any registered kind: the one store class, of which
`loaderx.zrecord.DenseStore` and `RaggedStore` are the two fixed-kind forms.

    from loaderx.typed_store import TypedStore

    ts = TypedStore('tokens', 'token_sequence', np.uint16, (128,))
    ts.append(batch)          # a (B, 128) uint16 array
    ts[0, 5]                  # a (2, 128) array
    TypedStore('tokens').kind # 'token_sequence': any kind opens

The store's owner (a C++ `TypedOwner` plugin linked into the extension:
loaderx's "dense" and "ragged", or a user's own; README, "Adding a typed
owner") decides how records are laid out, and the class follows it:

- fixed-width kinds (dense, ...): every record is one `item_shape` array of
  `dtype`. `append` takes one (B, *item_shape) array (a 0-d value is one
  record); reads return one (n, *item_shape) ndarray.
- shaped kinds (ragged, ...): every record keeps its own shape. `append`
  takes any iterable of arrays (or bytes/bytearray in a uint8 store); reads
  return a list of arrays, exactly as written.

The constructor opens the store at `path` if there is one, of `kind` (any
kind if None), checking any given dtype, item_shape and codec against it
(ValueError on a mismatch); otherwise it creates one, which needs the kind
and the dtype (and item_shape for a fixed-width kind): without them a
missing store is FileNotFoundError. `level` is the compression level of
this handle's appends (None: the codec's default); it is not persisted.

`read_only=True` opens without writing anything: read-only file handles and
a shared lock, so other read-only handles (in this process or others) may
hold the store at the same time, a writer may not (StoreBusyError, -14),
and it works on read-only files and filesystems. It never creates a store
(a missing one is FileNotFoundError). `append`, `delete` and `compact` then
raise RuntimeError naming the store as open read-only; `sync` does nothing.

`verify()` reads every record once and checks it against the checksum
written with it, returning a `loaderx.verify_report.VerifyReport` that
names every damaged record (a damaged record read otherwise is DataLoss:
ZrecordError -7 naming it); `verify(progress)` also calls
`progress(done, total)` as it goes.

Thread safety: a store may be used from many threads. Reads, appends and
`verify` overlap; `delete` and `compact` wait for the calls in flight and
run alone; `close()` from any thread waits for the calls in flight, and
every call after it raises RuntimeError ("the store is closed").

Reads and deletions take an int (negatives count from the end), a slice, a
tuple or list of ints, an integer array, or a boolean mask of the store's
length; the store resolves them (see `loaderx.errors` for what it raises).
Every check on records, dtypes, shapes and indices is the engine's.
"""

import functools
import operator
import os
import pathlib
import threading
from collections.abc import Sequence
from typing import Any, Literal, Self

import numpy as np
import numpy.typing as npt

from loaderx import _buffers, _dtype
from loaderx import loaderx_native as _native
from loaderx._typing import RecordKey, StrPath, VerifyProgress
from loaderx.errors import IndexOutOfRangeError
from loaderx.verify_report import VerifyReport
from loaderx.vfs import Vfs

__all__ = ["TypedStore"]

_default_vfs: Vfs | None = None


def _resolve_vfs(vfs: Vfs | None) -> Vfs:
    global _default_vfs
    if vfs is not None:
        return vfs
    if _default_vfs is None:
        _default_vfs = Vfs("posix")
    return _default_vfs


@functools.lru_cache(maxsize=256)
def _identity(dtype: np.dtype[Any]) -> Any:
    """The identity the engine compares for records of `dtype`."""
    return _dtype.to_identity(dtype)


def _bytes_of(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """`array`'s bytes in C order, as a flat uint8 array (a view when the
    array is contiguous)."""
    if array.dtype.hasobject:
        raise ValueError(f"arrays of {array.dtype} hold references, not "
                         "data; they cannot be stored")
    # reshape(-1) of a strided array can be a strided view, which has no
    # bytes view: copy those to C order.
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _writable_array(out: Any) -> npt.NDArray[Any]:
    """`out` as an ndarray over its own memory, checked to be writable and
    C-contiguous (ValueError) or refused as no buffer at all (TypeError)."""
    if isinstance(out, np.ndarray):
        array = out
    elif hasattr(out, "__dlpack__") and hasattr(out, "data_ptr"):
        # A torch tensor: numpy's view of a CPU tensor shares its memory.
        if getattr(out, "device", None) is not None and out.device.type != "cpu":
            raise ValueError(f"gather: out is on {out.device}; gather fills "
                             "host memory (a pinned CPU tensor, say)")
        array = np.asarray(out)
        if out.numel() and array.ctypes.data != out.data_ptr():
            raise ValueError("gather: out cannot be shared without a copy")
    else:
        try:
            array = np.asarray(memoryview(out))
        except TypeError:
            raise TypeError("gather: out must be a numpy array, an object "
                            "with the buffer protocol or a CPU torch tensor, "
                            f"not {type(out).__name__}") from None
    if not array.flags.writeable:
        raise ValueError("gather: out is read-only")
    if not array.flags.c_contiguous:
        raise ValueError("gather: out is not C-contiguous")
    return array


# Index arrays the engine takes as they are.
_WIDE_INDEX_TYPES = (np.int64, np.uint64)


def _indices(key: RecordKey, length: int) -> tuple[npt.NDArray[Any], bool]:
    """`key` as (an index array for the engine, whether it names one
    record): int64 (negatives count from the end), uint64 (as they are) or
    a bool mask. The engine resolves and range-checks them."""
    if isinstance(key, (int, np.integer)):  # bool too: True is 1.
        index = int(key)
        if -(1 << 63) <= index < (1 << 63):
            return np.array([index], dtype=np.int64), True
        if 0 <= index < (1 << 64):
            return np.array([index], dtype=np.uint64), True
        # No 64-bit index can name it.
        raise IndexOutOfRangeError(
            -3, f"index {index} is out of range for {length} records")
    if isinstance(key, slice):
        return np.arange(*key.indices(length), dtype=np.int64), False
    array = np.asarray(key)
    if array.dtype.kind in "fO" and isinstance(key, (list, tuple)):
        _refuse_wide_ints(key, length)
    if array.dtype == np.bool_:
        return np.ascontiguousarray(array), False
    if array.size == 0:
        return np.empty(0, dtype=np.uint64), False
    if array.dtype.kind not in "iu":
        raise TypeError("records are selected by integers, a slice or a "
                        f"boolean mask, not {array.dtype} values")
    wide = np.uint64 if array.dtype.kind == "u" else np.int64
    return np.ascontiguousarray(array.reshape(-1), dtype=wide), False


def _refuse_wide_ints(key: Sequence[Any], length: int) -> None:
    """numpy makes a list of ints float64 or object once one is outside
    int64: IndexOutOfRangeError for such an int (no store holds 2^63
    records), rather than a lossy float or a TypeError."""
    for value in key:
        try:
            index = operator.index(value)
        except TypeError:
            return  # Not all ints: the caller's TypeError says so.
        if not -(1 << 63) <= index < (1 << 63):
            raise IndexOutOfRangeError(
                -3, f"index {index} is out of range for {length} records")


def _request(dtype: npt.DTypeLike | None, item_shape: Sequence[int] | None,
             codec: str | None, dict_bytes: bytes | None,
             level: int | None, read_only: bool) -> Any:
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
    if level is not None:
        request.set_level(int(level))
    if not isinstance(read_only, (bool, np.bool_)):
        raise TypeError(f"read_only is a bool, not {type(read_only).__name__}")
    request.set_read_only(bool(read_only))
    return request


def _reopen(store_type: Any, path: str, vfs: Vfs | None) -> Any:
    """Unpickles a store: opens the one at `path` read-only (never creates
    one)."""
    return store_type(path, vfs=vfs, read_only=True)


class TypedStore:
    """A store of any registered kind; its owner's geometry decides whether
    records are fixed-width arrays or shaped ones."""

    def __init__(self, path: StrPath, kind: str | None = None,
                 dtype: npt.DTypeLike | None = None,
                 item_shape: Sequence[int] | None = None,
                 codec: str | None = None, dict_bytes: bytes | None = None,
                 vfs: Vfs | None = None, level: int | None = None,
                 read_only: bool = False) -> None:
        self._path = pathlib.Path(path)
        self._vfs = vfs  # As given: None is the default filesystem.
        self._closed = True  # Until the native store exists.
        # Makes close() whole when threads race to it (or to __del__).
        self._close_lock = threading.Lock()
        self._kind = kind or ""
        self._native = _native.StoreHandle(
            _resolve_vfs(vfs)._fs, os.fspath(path), kind or "",
            _request(dtype, item_shape, codec, dict_bytes, level, read_only))
        self._closed = False
        self._read_only: bool = self._native.read_only()
        self._kind = self._native.kind()
        self._fixed_width: bool = self._native.fixed_width()
        self._dtype: np.dtype[Any] = _dtype.from_identity(self._native.dtype())
        self._codec: str = self._native.codec()
        self._item_shape: tuple[int, ...] = tuple(self._native.item_shape())

    @property
    def path(self) -> pathlib.Path:
        """The store's directory, as given when it was opened."""
        return self._path

    @property
    def kind(self) -> str:
        """The owner's kind name: "dense", "ragged", or a plugin's."""
        return self._kind

    @property
    def fixed_width(self) -> bool:
        """Whether every record is one `item_shape` array (reads return one
        ndarray) rather than keeping its own shape (reads return a list)."""
        return self._fixed_width

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of every record's elements."""
        return self._dtype

    @property
    def item_shape(self) -> tuple[int, ...]:
        """Every record's shape, in a fixed-width store. A shaped store has
        none (AttributeError, so `hasattr` tells the layouts apart)."""
        return self._fixed_shape()

    def _fixed_shape(self) -> tuple[int, ...]:
        if not self._fixed_width:
            raise AttributeError(f"a {self._kind!r} store's records each have "
                                 "their own shape; it has no item_shape")
        return self._item_shape

    @property
    def codec(self) -> str:
        """The store's codec, fixed at creation: "raw", "zstd", "zstd_dict" or a plugin's."""
        return self._codec

    @property
    def read_only(self) -> bool:
        """Whether this handle was opened read-only (no writes; shared with
        other read-only handles)."""
        return self._read_only

    def __len__(self) -> int:
        return int(self._native.size())

    def append(self, records: Any) -> int:
        """Appends records in one commit; returns the index of the first.
        Fixed-width stores take one (B, *item_shape) array; shaped stores
        any iterable of arrays (bytes/bytearray in a uint8 store)."""
        if self._fixed_width:
            batch = np.asarray(records)
            return int(self._native.append_array(
                _identity(batch.dtype), batch.shape, _bytes_of(batch)))
        return int(self._native.append_records(
            [self._record(record) for record in records]))

    def _record(self, record: Any) -> tuple[Any, tuple[int, ...], Any]:
        if isinstance(record, (bytes, bytearray)):
            # Bytes are uint8 records; that is Python's rule, not a dtype's.
            if self._dtype != np.dtype(np.uint8):
                raise ValueError("bytes records are uint8, but the store "
                                 f"dtype is {self._dtype}")
            record = np.frombuffer(record, dtype=np.uint8)
        array = np.asarray(record)
        return (_identity(array.dtype), array.shape, _bytes_of(array))

    def __getitem__(self, key: RecordKey) -> Any:
        """One record for an int (a numpy scalar for fixed-width scalar
        records); a record set (an ndarray for fixed-width stores, a list
        for shaped ones) otherwise."""
        indices, single = _indices(key, len(self))
        records = self.__getitems__(indices)
        return records[0] if single else records

    def __getitems__(self, key: RecordKey) -> Any:
        """The records at `key` (any index form), read in one native call:
        one (n, *item_shape) ndarray for a fixed-width store, a list of
        arrays for a shaped one."""
        indices, count = self._engine_indices(key)
        if self._fixed_width:
            # Large results reuse pre-faulted, page-aligned buffers.
            out = _buffers.empty((count, *self._item_shape), self._dtype)
            self._native.gather_into(indices, _bytes_of(out))
            return out
        # The batch's one buffer, recycled when it is large.
        (shapes, offsets), buffer = self._native.read(indices,
                                                      _buffers.byte_buffer)
        return [np.ndarray(shape, self._dtype, buffer, offset)
                for shape, offset in zip(shapes, offsets)]

    def _engine_indices(self, key: RecordKey) -> tuple[npt.NDArray[Any], int]:
        """`key` as the engine's index array, and how many records it names."""
        if (type(key) is np.ndarray and key.ndim == 1 and
                key.dtype.type in _WIDE_INDEX_TYPES and
                key.flags.c_contiguous):
            indices = key  # Already what the engine takes: no conversion.
        else:
            indices, _ = _indices(key, len(self))
        count = indices.size if indices.dtype.type is not np.bool_ else int(
            np.count_nonzero(indices))
        return indices, count

    def gather(self, indices: RecordKey, out: Any = None) -> Any:
        """The records at `indices` (any index form), written into `out`
        and returning it: the way to fill a reused or pinned buffer with
        no copy and no allocation. `out` is any C-contiguous, writable
        buffer of exactly len(records) * record bytes: a numpy array
        (of any dtype and shape with that many bytes), an object with the
        buffer protocol (bytearray, memoryview, mmap), or a CPU torch
        tensor (pinned or not; shared through numpy, never copied). With
        `out=None` a new (n, *item_shape) array is returned, as
        `store[indices]` does. Fixed-width stores only (a ragged store's
        records have their own shapes: `store[indices]`). A wrong size,
        a read-only or strided `out` or a bad index raises before
        anything is written."""
        if not self._fixed_width:
            raise TypeError(f"a {self._kind!r} store's records each have "
                            "their own shape; gather needs a fixed-width "
                            "store (read them with store[indices])")
        engine_indices, count = self._engine_indices(indices)
        if out is None:
            target = _buffers.empty((count, *self._item_shape), self._dtype)
            self._native.gather_into(engine_indices, _bytes_of(target))
            return target
        target = _writable_array(out)
        expected = count * int(self._native.record_bytes())
        if target.nbytes != expected:
            raise ValueError(f"gather: out has {target.nbytes} bytes; "
                             f"{count} records of this store take {expected}")
        self._native.gather_into(engine_indices,
                                 target.reshape(-1).view(np.uint8))
        return out

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

    def estimate_compaction(self) -> dict[str, int | None]:
        """What `compact()` would do now: {moves, batches, reclaimed_bytes,
        needed_bytes, available_bytes} (available_bytes None when the
        filesystem does not say). `compact()` refuses (OSError) when the
        free space is known and smaller than needed_bytes."""
        e = self._native.estimate_compaction()
        return {"moves": e.moves, "batches": e.batches,
                "reclaimed_bytes": e.reclaimed_bytes,
                "needed_bytes": e.needed_bytes,
                "available_bytes": (None if e.available_bytes < 0
                                    else e.available_bytes)}

    def accept_metadata_problems(self) -> None:
        """Accepts what `verify()` lists as metadata problems (records
        another writer removed past the length, or that reappeared): the
        store as it is becomes what checksums.lx records, and later reports
        are clean. Needs a writable store."""
        self._native.accept_metadata_problems()

    def stats(self) -> dict[str, int]:
        """{records, live_bytes, chunk_bytes, reclaimable}, as 1.7.7
        counts them (chunk_bytes = tail_chunk * 2^32 + tail_offset)."""
        s = self._native.stats()
        return {"records": s.records, "live_bytes": s.live_bytes,
                "chunk_bytes": s.chunk_bytes, "reclaimable": s.reclaimable}

    def sync(self) -> None:
        """Makes everything appended so far durable."""
        self._native.sync()

    def verify(self, progress: VerifyProgress | None = None) -> VerifyReport:
        """Reads every record and checks it against the checksum written
        with it; the report names every damaged record instead of stopping
        at the first. May run alongside reads and appends (it covers the
        records present when it starts); works on read-only handles.

        `progress`, if given, is called as `progress(done, total)` with the
        records examined so far and in all: `done` grows to `total` and
        the last call has them equal (an empty store: one call, (0, 0)),
        after every few thousand records. Calls come from the threads doing
        the work (the caller's and the shared pool's), never two at once,
        each holding the GIL (the verification itself runs without it).
        `progress` must not use this store (it may deadlock). If it raises,
        it is not called again, the verification still runs to its end,
        and then `verify` raises that exception instead of returning a
        report (an error of the verification itself is raised instead)."""
        return VerifyReport._from_native(self._native.verify(progress))

    def has_dict(self) -> bool:
        """Whether the store compresses against a dictionary (zstd_dict)."""
        return bool(self._native.has_dict())

    def close(self, sync: bool = True) -> None:
        """Syncs (unless `sync=False`: durability left to a later sync or
        the OS), then releases the store and its lock. Idempotent, from any
        thread: a close racing another returns once the store is closed."""
        with self._close_lock:
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
        store at the same path, on a filesystem of the same name, whatever
        its kind, and always READ-ONLY (`read_only=True`), whether the
        pickled handle was read-only or not. Pickling is how a store
        reaches data-loading workers, which only read: read-only copies
        share the store's lock, so any number of workers (and the pickling
        process, if it opened the store read-only too) hold it at once.
        A read-write handle still open anywhere excludes them
        (StoreBusyError, code -14): open the store with `read_only=True`
        before handing it out, or close the writer first. To write in the
        receiving process, open the path there explicitly. A filesystem
        that lives in one process's memory ("memory", "fault") is a new,
        empty one there, so the store is not found."""
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

    def _describe(self) -> str:
        if not hasattr(self, "_native"):  # The constructor failed.
            return f"{os.fspath(self._path)!r}, not open"
        shape = (f"item_shape={self._item_shape}, " if self._fixed_width
                 else "")
        records = len(self) if not self._closed else "closed"
        return (f"{os.fspath(self._path)!r}, dtype={self._dtype}, {shape}"
                f"codec={self._codec!r}, records={records}")

    def __repr__(self) -> str:
        return f"TypedStore({self._describe()}, kind={self._kind!r})"
