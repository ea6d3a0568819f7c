"""Dictionary training for "zstd_dict" stores.

    from loaderx.utils import train_dict, DICT_TIERS
    d = train_dict(settled_array, tier="balanced")
    DenseStore('data', dtype, shape, codec='zstd_dict', dict_bytes=d)

Training is explicit and separate: a store never trains its own dictionary.
Train once on the settled, complete data. A tier presets the whole
tradeoff, the dictionary's size and how many bytes of records train it, so
a caller picks a tier, never a number. The sample is a strided subset of
the records, so each tier costs the same training time whatever the record
size. A larger dictionary compresses small, similar records better and
costs more cache on every gather.
"""

import numpy as np

from loaderx import loaderx_native as _native

DICT_TIERS = {
    "small": {"dict_bytes": 16 << 10, "sample_bytes": 2 << 20},
    "balanced": {"dict_bytes": 64 << 10, "sample_bytes": 8 << 20},
    "max": {"dict_bytes": 256 << 10, "sample_bytes": 32 << 20},
}


def _strided(count, record_bytes, budget):
    """Indices of an evenly strided subset of `count` records whose bytes
    fill about `budget`."""
    wanted = max(1, min(count, budget // max(1, record_bytes)))
    return np.unique(np.linspace(0, count - 1, wanted).astype(np.int64))


def _as_bytes(record):
    array = np.asarray(record)
    return np.require(array, requirements="C").reshape(-1).view(np.uint8)


def train_dict(source, tier="balanced"):
    """Trains a dictionary on `source`: a numpy array (records along axis
    0), a DenseStore or RaggedStore, or an iterable of records (arrays or
    bytes). Returns the dictionary's bytes."""
    if tier not in DICT_TIERS:
        raise ValueError(f"tier must be one of {sorted(DICT_TIERS)}, got {tier!r}")
    preset = DICT_TIERS[tier]
    budget = preset["sample_bytes"]
    if isinstance(source, np.ndarray) or hasattr(source, "__getitem__") and \
            hasattr(source, "__len__") and not isinstance(source, (list, tuple)):
        count = len(source)
        if count == 0:
            raise ValueError("cannot train a dictionary on no records")
        first = source[0]
        if isinstance(first, list):  # A ragged store read returns lists.
            first = first[0]
        indices = _strided(count, np.asarray(first).nbytes, budget)
        picked = source[indices]
        records = list(picked) if not isinstance(picked, list) else picked
    else:
        records = [_as_bytes(r) for r in source]
        if not records:
            raise ValueError("cannot train a dictionary on no records")
        average = sum(r.nbytes for r in records) // len(records)
        records = [records[i] for i in _strided(len(records), average, budget)]
    pieces = [_as_bytes(r) for r in records]
    sizes = np.array([p.nbytes for p in pieces], dtype=np.int64)
    data = np.concatenate(pieces) if pieces else np.empty(0, np.uint8)
    return _native.train_zstd_dictionary(data, sizes, preset["dict_bytes"])
