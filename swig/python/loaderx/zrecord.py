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

Beyond 1.7.7: `vfs=` (any registered filesystem), `level=` (the
compression level of this handle's appends, not persisted), `read_only=`
(no writes; read-only handles share a store), `verify(progress=None)`
(every record checked against its checksum, telling `progress(done,
total)` how far it has got; see `TypedStore.verify`),
`close(sync=False)`, `__repr__`, dtypes (structured ones with padding
included) that come back exactly as they were written, pickling by path (a
store sent to another process reopens there read-only; see
`TypedStore.__reduce__`),
and `loaderx.typed_store.TypedStore`, the class both stores are forms of,
which serves stores of any registered kind.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import numpy.typing as npt

from loaderx import loaderx_native as _native
from loaderx._typing import RecordKey, StrPath
from loaderx.errors import ZrecordError
from loaderx.typed_store import TypedStore
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

# The largest record, in bytes (the engine's limit).
MAX_RECORD_LEN: int = _native.max_record_bytes()


def _dict_tier(tier: str | None) -> dict[str, int]:
    """`DICT_TIERS[tier]`, `None` meaning the default; ValueError for any
    other name (or an integer)."""
    name = DICT_TIER_DEFAULT if tier is None else tier
    if not isinstance(name, str) or name not in DICT_TIERS:
        raise ValueError(
            f"unknown dict tier {tier!r}, expected one of {sorted(DICT_TIERS)}")
    return DICT_TIERS[name]


def _sample_count(total: int, item_bytes: int, tier: str | None = None) -> int:
    """How many of `total` records of `item_bytes` fill the tier's training
    budget: at least one, at most `total`."""
    budget = _dict_tier(tier)["samples"]
    return max(1, min(total, max(1, budget // max(item_bytes, 1))))


class DenseStore(TypedStore):
    """Fixed-shape records: every record is one `item_shape` array of
    `dtype`; reads gather at fixed byte offsets into one ndarray. The
    `TypedStore` of kind "dense"."""

    def __init__(self, path: StrPath, dtype: npt.DTypeLike | None = None,
                 item_shape: Sequence[int] | None = None,
                 codec: str | None = None, dict_bytes: bytes | None = None,
                 vfs: Vfs | None = None, level: int | None = None,
                 read_only: bool = False) -> None:
        super().__init__(path, "dense", dtype, item_shape, codec, dict_bytes,
                         vfs, level, read_only)

    @property
    def item_shape(self) -> tuple[int, ...]:
        """Every record's shape (the array shape `append` takes after the batch axis)."""
        return self._fixed_shape()

    def append(self, records: npt.ArrayLike) -> int:
        """Appends one (batch, *item_shape) array of the store's dtype (a
        0-d value is one record); returns the index of the first."""
        return super().append(records)

    def __getitems__(self, key: RecordKey) -> npt.NDArray[Any]:
        """The records at `key` (any index form) as one ndarray of shape
        (n, *item_shape)."""
        records: npt.NDArray[Any] = super().__getitems__(key)
        return records

    def __repr__(self) -> str:
        return f"DenseStore({self._describe()})"


class RaggedStore(TypedStore):
    """Records of one dtype whose shapes differ; reads return each with
    exactly the shape it was written with, in a list. The `TypedStore` of
    kind "ragged"."""

    def __init__(self, path: StrPath, dtype: npt.DTypeLike | None = None,
                 codec: str | None = None, dict_bytes: bytes | None = None,
                 vfs: Vfs | None = None, level: int | None = None,
                 read_only: bool = False) -> None:
        super().__init__(path, "ragged", dtype, None, codec, dict_bytes, vfs,
                         level, read_only)

    def append(self,
               records: Iterable[npt.ArrayLike | bytes | bytearray]) -> int:
        """Appends every record of `records` (any iterable of arrays, or of
        bytes/bytearray in a uint8 store) in one commit; returns the index
        of the first."""
        return super().append(records)

    def __getitems__(self, key: RecordKey) -> list[npt.NDArray[Any]]:
        """The records at `key` (any index form) as a list of arrays, read
        in one native call."""
        records: list[npt.NDArray[Any]] = super().__getitems__(key)
        return records

    def __repr__(self) -> str:
        return f"RaggedStore({self._describe()})"
