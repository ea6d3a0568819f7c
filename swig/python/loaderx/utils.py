"""Dictionary training for "zstd_dict" stores, as loaderx 1.7.7 does it.

    from loaderx.utils import train_dict
    d = train_dict(settled_array)                  # tier "balanced"
    DenseStore('data', dtype, shape, codec='zstd_dict', dict_bytes=d)

Training is explicit and separate: a store never trains its own dictionary.
Train once on the settled data; one dictionary can serve many stores. A
tier of `loaderx.zrecord.DICT_TIERS` presets the dictionary's size and how
many bytes of records train it:

- an ndarray (records along axis 0) or a store: an evenly strided subset
  of the records, as many as fill the budget (a ragged store's record size
  is the mean of its first 32 records; only payloads train, not shapes);
- any other iterable: its records in order (bytes as they are, anything
  else as `np.asarray(record).tobytes()`) until the budget is reached.

The samples go to zstd's trainer with its default parameters, so the same
samples give the same dictionary as 1.7.7's `train_dict`.
"""

import math
import pathlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from loaderx import loaderx_native as _native
from loaderx._typing import StrPath
from loaderx.typed_store import TypedStore
from loaderx.zrecord import _dict_tier, _sample_count

__all__ = ["train_dict"]


def _strided(count, item_bytes, tier):
    """Indices of the evenly strided sample of `count` records."""
    k = min(_sample_count(count, item_bytes, tier), count)
    return np.unique(np.linspace(0, count - 1, k).astype(np.int64))


def _from_array(array, tier):
    if len(array) == 0:
        raise ValueError("cannot train a zstd dictionary on an empty array")
    item_bytes = math.prod(array.shape[1:]) * array.dtype.itemsize
    picked = np.ascontiguousarray(array[_strided(len(array), item_bytes,
                                                 tier)])
    row = math.prod(picked.shape[1:]) * picked.dtype.itemsize
    return picked.reshape(-1).view(np.uint8), np.full(len(picked), row)


def _from_store(store, tier):
    count = len(store)
    if count == 0:
        raise ValueError("cannot train a zstd dictionary on an empty store")
    if store.fixed_width:
        item_bytes = math.prod(store.item_shape) * store.dtype.itemsize
        picked = store.__getitems__(_strided(count, item_bytes, tier))
        return (picked.reshape(-1).view(np.uint8),
                np.full(len(picked), item_bytes))
    preview = store.__getitems__(np.arange(min(count, 32)))
    item_bytes = int(np.mean([record.nbytes for record in preview])) or 1
    picked = store.__getitems__(_strided(count, item_bytes, tier))
    pieces = [np.require(r, requirements="C").reshape(-1).view(np.uint8)
              for r in picked]
    return np.concatenate(pieces), np.array([p.size for p in pieces])


def _from_iterable(records, tier):
    budget = _dict_tier(tier)["samples"]
    pieces, total = [], 0
    for record in records:
        if isinstance(record, (bytes, bytearray)):
            piece = bytes(record)
        else:
            piece = np.ascontiguousarray(np.asarray(record)).tobytes()
        pieces.append(piece)
        total += len(piece)
        if total >= budget:
            break
    if not pieces:
        raise ValueError("train_dict needs at least one record")
    return (np.frombuffer(b"".join(pieces), dtype=np.uint8),
            np.array([len(p) for p in pieces]))


def _train(samples, sizes, capacity):
    """Trains on the packed samples; the engine checks them as 1.7.7 does
    (sizes non-negative and covering the samples exactly, a positive
    target)."""
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or not np.issubdtype(sizes.dtype, np.integer):
        raise ValueError("sizes must be a one-dimensional integer array")
    return _native.train_zstd_dictionary(
        np.ascontiguousarray(samples), sizes.astype(np.int64), capacity)


def train_dict(source: npt.ArrayLike | TypedStore | Iterable[Any],
               tier: str | None = None, path: StrPath | None = None) -> bytes:
    """Trains a zstd dictionary on `source`: an ndarray, a store (a
    DenseStore, a RaggedStore or any `TypedStore`), or an iterable of
    records, sized by `tier` ("fast",
    "balanced" — the default — or "max"). Writes it to `path` too, if given.
    Returns the dictionary's bytes. Too few or too small samples raise
    `ZrecordError` code -9."""
    capacity = _dict_tier(tier)["size"]
    if isinstance(source, np.ndarray):
        samples, sizes = _from_array(source, tier)
    elif isinstance(source, TypedStore):
        samples, sizes = _from_store(source, tier)
    else:
        samples, sizes = _from_iterable(source, tier)
    dictionary = _train(samples, sizes, capacity)
    if path is not None:
        pathlib.Path(path).write_bytes(dictionary)
    return dictionary
