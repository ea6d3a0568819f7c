"""Result arrays for batch reads that do not pay first-touch page faults.

A fresh numpy array of a few hundred KiB or more is a fresh anonymous
mapping (or heap memory glibc hands back to the kernel): the gather
that fills it faults every page in (one trap per 4 KiB), and its data sits
16 bytes past a page boundary, the one destination alignment the kernel's
copies are slow into. `empty` instead hands out arrays over page-aligned
anonymous mappings, asked for huge pages, made pre-faulted (one system
call populates them) and recycled: a mapping that no array or view refers
to any more (only this module's pool holds it) is reused for the next
batch of the same size, without a fault or a zeroing. Callers must
overwrite every byte (a gather does): a recycled buffer holds an earlier
batch's bytes.

`byte_buffer` does the same for a batch whose size varies from one read to
the next (a shaped store's batches): it takes a free pooled mapping at
least as large and at most twice as large, or makes one rounded up to a
power of two, so batches of similar sizes share a few mappings.

The arrays are ordinary writable C-contiguous ndarrays of the requested
dtype and shape; their `base` is the mapping. Small results (under
`MIN_BYTES`) come from `np.empty` as before. The pool keeps at most
`MAX_POOLED` buffers and `MAX_POOLED_BYTES` bytes alive: a new buffer
takes the place of free ones of sizes no longer asked for (oldest first);
if the buffers in use fill the pool, it is not kept and dies with its
arrays.
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


def _free_refcount() -> int:
    """What `sys.getrefcount` reports, in `_mapping`'s loop, for a pooled
    mapping nothing else holds. Measured by a loop of the same shape rather
    than assumed: the count of the references a frame holds differs between
    CPython versions (3.14 borrows some instead of counting them)."""
    pool = [mmap.mmap(-1, mmap.PAGESIZE)]
    for index in range(len(pool)):
        mapping = pool[index]
        if sys.getrefcount(mapping) >= 0:
            return sys.getrefcount(mapping)
    raise AssertionError("unreachable")


# Linux's MADV_POPULATE_WRITE (5.14+), which Python's mmap module does not
# name: faults a range in, writable, in one call.
_MADV_POPULATE_WRITE = 23


def _advise(mapping: mmap.mmap, option: int | None) -> bool:
    if option is None:
        return False
    try:
        mapping.madvise(option)
        return True
    except (AttributeError, OSError, ValueError):  # Not offered here.
        return False


def _new_mapping(size: int) -> mmap.mmap:
    """A private anonymous mapping of `size` bytes, asked for huge pages
    where the kernel gives them on request (Linux's transparent huge pages
    in their usual "madvise" mode, which numpy also asks for its large
    arrays: a 64 MiB batch is then 32 TLB entries, not 16,384; measured
    0.74-0.91x -> median 0.98x `gather_into`'s speed for 256 KiB records),
    then faulted in before it is handed out."""
    flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0x20)
    mapping = mmap.mmap(-1, size, flags=flags)
    _advise(mapping, getattr(mmap, "MADV_HUGEPAGE", None))
    linux = sys.platform.startswith("linux")
    if not _advise(mapping, _MADV_POPULATE_WRITE if linux else None):
        np.frombuffer(mapping, np.uint8)[::mmap.PAGESIZE] = 0  # One per page.
    return mapping


_FREE_REFCOUNT = _free_refcount()


def _mapping(size: int, fits: bool = False) -> mmap.mmap:
    """A free pooled mapping of exactly `size` bytes (with `fits`: of
    `size` to 2 * `size`), else a new one (with `fits`: of the next power
    of two), pooled if the pool has room or free mappings of other sizes
    (dropped oldest first) make it."""
    with _lock:
        unused = []  # Free mappings of other sizes, by position.
        for index in range(len(_pool)):
            mapping = _pool[index]
            if sys.getrefcount(mapping) == _FREE_REFCOUNT:
                length = len(mapping)
                if length == size or fits and size <= length <= 2 * size:
                    return mapping
                unused.append(index)
        if fits:
            size = 1 << (size - 1).bit_length()
        mapping = _new_mapping(size)
        count, total = len(_pool), sum(len(m) for m in _pool)
        dropped = set()
        for index in unused:
            if count < MAX_POOLED and total + size <= MAX_POOLED_BYTES:
                break
            dropped.add(index)
            count, total = count - 1, total - len(_pool[index])
        if dropped:
            _pool[:] = [m for i, m in enumerate(_pool) if i not in dropped]
        if count < MAX_POOLED and total + size <= MAX_POOLED_BYTES:
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


def byte_buffer(size: int) -> npt.NDArray[np.uint8]:
    """An uninitialised uint8 array of `size` bytes that the caller will
    overwrite entirely, from a pooled mapping that fits it when it is
    large (see the module's comment)."""
    if size < MIN_BYTES or _WINDOWS:
        return np.empty(size, dtype=np.uint8)
    return np.frombuffer(_mapping(size, fits=True), dtype=np.uint8, count=size)
