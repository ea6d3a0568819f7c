"""Store sets: many loaderx stores of one type read as one data set.

    from loaderx.store_set import StoreSet

    StoreSet.create("train.lxset", ["shard-000", "shard-001", "shard-002"])
    with StoreSet("train.lxset") as data:       # read-only, shared locks
        len(data)                                 # all members' records
        data[12_345]                              # one record
        data[[5, 70_000, 3]]                      # a batch across members
        DataLoader({"x": data}, batch_size=256)   # a loader stream

A set is a manifest file (format: docs/store-set-format.md) naming its
members by paths relative to the manifest, each with its record count and
the fingerprint of its committed state. Opening checks every member: one
appended to, deleted from, compacted or replaced since the set was written
raises a `RuntimeError` (a `loaderx.errors.ZrecordError` where the engine
attaches a store code) naming the member: never silently different data. Members open read-only, so any number
of processes and hosts read one set at once.

Records are indexed in manifest order (member 0's, then member 1's, ...).
Reads take every index form a store takes; a batch is resolved to members
in one pass and the members are read in parallel on loaderx's thread pool.
`verify()` reports damage by set position, each problem naming its member.
"""

import os
import pathlib
from collections.abc import Iterable
from typing import Any, Literal, Self

import numpy as np

from loaderx import _buffers, _dtype
from loaderx import loaderx_native as _native
from loaderx._typing import RecordKey, StrPath
from loaderx.typed_store import (_WIDE_INDEX_TYPES, _bytes_of, _indices,
                                  _resolve_vfs, _writable_array)
from loaderx.verify_report import VerifyReport
from loaderx.vfs import Vfs

__all__ = ["StoreSet"]


def _reopen_set(path: str, vfs: Vfs | None) -> "StoreSet":
    return StoreSet(path, vfs=vfs)


class StoreSet:
    """A read-only view of the stores a manifest names, as one store."""

    @staticmethod
    def create(manifest: StrPath, members: Iterable[StrPath],
               vfs: Vfs | None = None) -> "StoreSet":
        """Writes a manifest for `members` (store paths, in order; each
        stored relative to the manifest's directory) and opens it. Every
        member must have the first one's kind and type (ValueError naming
        the member otherwise); FileExistsError if the manifest exists."""
        base = pathlib.Path(manifest)
        paths = [pathlib.Path(member) for member in members]
        if not base.is_absolute() and any(p.is_absolute() for p in paths):
            base = base.absolute()
        if base.is_absolute():
            paths = [p.absolute() for p in paths]
        _native.create_store_set(_resolve_vfs(vfs)._fs, os.fspath(base),
                                 [os.fspath(p) for p in paths])
        return StoreSet(manifest, vfs=vfs)

    def __init__(self, manifest: StrPath, vfs: Vfs | None = None) -> None:
        self._path = pathlib.Path(manifest)
        self._vfs = vfs
        self._closed = True
        self._native = _native.SetHandle(_resolve_vfs(vfs)._fs,
                                         os.fspath(manifest))
        self._closed = False
        self._fixed_width: bool = self._native.fixed_width()
        self._dtype: np.dtype[Any] = _dtype.from_identity(self._native.dtype())
        self._item_shape: tuple[int, ...] = tuple(self._native.item_shape())
        self._kind: str = self._native.kind()

    @property
    def path(self) -> pathlib.Path:
        """The manifest's path."""
        return self._path

    @property
    def kind(self) -> str:
        """The members' kind ("dense", "ragged", or a plugin's)."""
        return self._kind

    @property
    def fixed_width(self) -> bool:
        """Whether every record is one array of `item_shape`."""
        return self._fixed_width

    @property
    def dtype(self) -> np.dtype[Any]:
        """The members' record dtype."""
        return self._dtype

    @property
    def item_shape(self) -> tuple[int, ...]:
        """A fixed-width set's record shape; () for a shaped one."""
        return self._item_shape

    @property
    def read_only(self) -> bool:
        """Always True: sets are read-only."""
        return True

    @property
    def members(self) -> list[str]:
        """The members' paths as opened, in set order."""
        return [self._native.member_path(m)
                for m in range(self._native.num_members())]

    def member_of(self, position: int) -> tuple[int, int]:
        """(member, record within it) of set position `position`."""
        if not 0 <= position < len(self):
            raise IndexError(f"position {position} is out of range for "
                             f"{len(self)} records")
        starts = [self._native.member_start(m)
                  for m in range(self._native.num_members())]
        member = max(m for m, start in enumerate(starts) if start <= position
                     and self._native.member_size(m) > 0)
        return member, position - starts[member]

    def fingerprint(self) -> int:
        """The members' committed states as one number."""
        return int(self._native.fingerprint())

    def __len__(self) -> int:
        return int(self._native.size())

    def __getitem__(self, key: RecordKey) -> Any:
        """One record for an int; a record set (an ndarray for fixed-width
        sets, a list for shaped ones) otherwise."""
        indices, single = _indices(key, len(self))
        records = self.__getitems__(indices)
        return records[0] if single else records

    def __getitems__(self, key: RecordKey) -> Any:
        """The records at `key`, read across members in one native call."""
        if (type(key) is np.ndarray and key.ndim == 1 and
                key.dtype.type in _WIDE_INDEX_TYPES and
                key.flags.c_contiguous):
            indices = key
        else:
            indices, _ = _indices(key, len(self))
        if self._fixed_width:
            count = indices.size if indices.dtype.type is not np.bool_ else int(
                np.count_nonzero(indices))
            out = _buffers.empty((count, *self._item_shape), self._dtype)
            self._native.gather_into(indices, _bytes_of(out))
            return out
        (shapes, offsets), buffer = self._native.read(indices,
                                                      _buffers.byte_buffer)
        return [np.ndarray(shape, self._dtype, buffer, offset)
                for shape, offset in zip(shapes, offsets)]

    def gather(self, indices: RecordKey, out: Any = None) -> Any:
        """A fixed-width set's records at `indices` written into `out` (any
        C-contiguous writable buffer of exactly their bytes, as
        `TypedStore.gather` takes) and returned; with `out=None` a new
        (n, *item_shape) array. TypeError for a shaped set."""
        if not self._fixed_width:
            raise TypeError("a shaped set's records each have their own "
                            "shape; read them with data[indices]")
        if out is None:
            return self.__getitems__(indices)
        engine_indices, _ = _indices(indices, len(self))
        count = (engine_indices.size if engine_indices.dtype != np.bool_
                 else int(np.count_nonzero(engine_indices)))
        target = _writable_array(out)
        expected = count * int(self._native.record_bytes())
        if target.nbytes != expected:
            raise ValueError(f"gather: out has {target.nbytes} bytes; "
                             f"{count} records of this set take {expected}")
        self._native.gather_into(engine_indices,
                                 target.reshape(-1).view(np.uint8))
        return out

    def stats(self) -> dict[str, int]:
        """The members' {records, live_bytes, chunk_bytes, reclaimable},
        summed."""
        s = self._native.stats()
        return {"records": s.records, "live_bytes": s.live_bytes,
                "chunk_bytes": s.chunk_bytes, "reclaimable": s.reclaimable}

    def verify(self) -> VerifyReport:
        """Every member verified: damaged records as set positions, each
        problem line naming its member."""
        return VerifyReport._from_native(self._native.verify())

    def close(self) -> None:
        """Releases the members and their shared locks. Idempotent."""
        if not self._closed:
            self._closed = True
            self._native.close()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles by manifest path: unpickling opens the set again."""
        return (_reopen_set, (os.fspath(self._path), self._vfs))

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

    def __repr__(self) -> str:
        records = len(self) if not self._closed else "closed"
        return (f"StoreSet({os.fspath(self._path)!r}, kind={self._kind!r}, "
                f"dtype={self._dtype}, records={records})")
