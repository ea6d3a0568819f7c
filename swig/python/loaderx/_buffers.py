"""Result arrays for batch reads that do not pay first-touch page faults.

A fresh numpy array of a few hundred KiB or more is a fresh anonymous
mapping (or heap memory glibc hands back to the kernel): the gather
that fills it faults every page in (one trap per 4 KiB), and its data sits
16 bytes past a page boundary, the one destination alignment the kernel's
copies are slow into. `empty` instead hands out arrays over page-aligned
anonymous mappings, made pre-faulted (`MAP_POPULATE`: one system call
populates them) and recycled: a mapping that no array or view refers to
any more (only this module's pool holds it) is reused for the next batch of
the same size, without a fault or a zeroing. Callers must overwrite every
byte (a gather does): a recycled buffer holds an earlier batch's bytes.

The arrays are ordinary writable C-contiguous ndarrays of the requested
dtype and shape; their `base` is the mapping. Small results (under
`MIN_BYTES`) come from `np.empty` as before. The pool keeps at most
`MAX_POOLED` buffers and `MAX_POOLED_BYTES` bytes alive; beyond that, new
buffers are not kept and die with their arrays.
"""

import math
import mmap
import sys
import threading
from typing import Any

import numpy as np
import numpy.typing as npt

MIN_BYTES = 64 << 10
MAX_POOLED = 8
MAX_POOLED_BYTES = 1 << 30

_WINDOWS = sys.platform == "win32"
_lock = threading.Lock()
_pool: list[mmap.mmap] = []
# What `sys.getrefcount` reports for a pooled mapping nothing else holds:
# the pool's list entry, the loop variable and the call's argument.
_FREE_REFCOUNT = 3


def _new_mapping(size: int) -> mmap.mmap:
    flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0x20)
    populate = getattr(mmap, "MAP_POPULATE", 0)
    try:
        return mmap.mmap(-1, size, flags=flags | populate)
    except (OSError, ValueError):  # No MAP_POPULATE here: fault lazily.
        return mmap.mmap(-1, size, flags=flags)


def _mapping(size: int) -> mmap.mmap:
    with _lock:
        for mapping in _pool:
            if len(mapping) == size and sys.getrefcount(mapping) == _FREE_REFCOUNT:
                return mapping
        mapping = _new_mapping(size)
        if (len(_pool) < MAX_POOLED and
                sum(len(m) for m in _pool) + size <= MAX_POOLED_BYTES):
            _pool.append(mapping)
        return mapping


def empty(shape: tuple[int, ...], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """An uninitialised array of `shape` and `dtype` that the caller will
    overwrite entirely."""
    kind = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    size = math.prod(shape) * kind.itemsize
    if size < MIN_BYTES or _WINDOWS:
        return np.empty(shape, dtype=kind)
    return np.frombuffer(_mapping(size), dtype=kind,
                         count=size // kind.itemsize).reshape(shape)
