"""The step-based index sampler, bit-exact with loaderx 1.7.7.

    from loaderx.zsampler import Sampler

    sampler = Sampler(1_000_000, 256, Sampler.Mode.CYCLIC, seed=42)
    indices = sampler.next()          # uint64 array of shape (256,)
    sampler.seek(1000)                # resume exactly at a step

For modes SEQUENTIAL, IID and CYCLIC the same (length, batch_size, mode,
seed) and the same calls give the same indices as loaderx 1.7.7's
`Sampler`. Modes are plain ints, as there (`Sampler.Mode.IID == 1`, and
passing `1` works):

  SEQUENTIAL (0)  a circular sliding window: step s starts at s * batch_size
                  (mod length) and wraps inside a batch when length is
                  smaller than the batch.
  IID (1)         uniform with replacement from one generator stream seeded
                  once; every batch is `batch_size` draws.
  CYCLIC (2)      without replacement: each cycle is a fresh pseudo-random
                  permutation, length // batch_size batches of batch_size;
                  the remainder is skipped, a different one each cycle. When
                  length < batch_size, every batch is a whole permutation of
                  `length` indices (a short batch).
  IID_KEYED (3)   a loaderx addition, not in 1.7.7: uniform with replacement,
                  but batch s is a pure function of (seed, s), so seek() and
                  batch() cost O(batch_size) at any step. Not IID's sequence.

Costs: `next()` is O(batch_size). `seek(step)` and `batch(step)` are
O(batch_size) for SEQUENTIAL, CYCLIC and IID_KEYED; IID replays its stream
to get there, O(distance * batch_size) draws (forward from the current step,
or from step 0 when going back), as 1.7.7 does. Seek follows 1.7.7's
formulas in wrapping 64-bit arithmetic: for SEQUENTIAL and IID,
seek(step) lands where `step` calls of next() would while
step * batch_size < 2**64.

Data-parallel training: `Sampler(..., rank=r, world_size=w)` returns rank
r's contiguous slice (batch_size // w indices) of each global batch; the
ranks' slices of a step, concatenated in rank order, are the batch a
single process draws, at any `w` that divides `batch_size` (ValueError
otherwise).

Arguments are ints in [0, 2**64) (numpy integers too): a negative or too
large one raises OverflowError, as in 1.7.7; a length or batch size of 0 and
an unknown mode raise ValueError (1.7.7 crashes or runs another mode). A
sampler is an endless iterator. It may be shared between threads (also on
free-threaded Python): a lock makes each `next`, `batch`, `seek` and `step`
whole, so threads drawing from one sampler get distinct consecutive steps.
"""

import enum
import operator
import threading
from typing import Self, SupportsIndex

import numpy as np
import numpy.typing as npt

from loaderx import loaderx_native as _native

_U64_LIMIT = 1 << 64


class Sampler:
    """Batches of indices into `range(length)`, `batch_size` at a time."""

    class Mode(enum.IntEnum):
        SEQUENTIAL = 0
        IID = 1
        CYCLIC = 2  # without replacement, a fresh permutation per cycle
        IID_KEYED = 3  # loaderx only: IID keyed by step, O(1) seek

    def __init__(self, length: SupportsIndex, batch_size: SupportsIndex,
                 mode: SupportsIndex, seed: SupportsIndex = 42,
                 rank: SupportsIndex = 0,
                 world_size: SupportsIndex = 1) -> None:
        mode = operator.index(mode)
        if not 0 <= mode < 256:
            raise OverflowError(f"mode {mode} does not fit uint8")
        # The native sampler's cursor is for one thread at a time.
        self._lock = threading.Lock()
        self._native = _native.IndexSampler(
            _u64(length, "length"), _u64(batch_size, "batch_size"), mode,
            _u64(seed, "seed"), _u64(rank, "rank"),
            _u64(world_size, "world_size"))
        self._batch_length = self._native.batch_length()

    def next(self) -> npt.NDArray[np.uint64]:
        """The current step's batch as a new uint64 array of exactly the
        indices drawn; advances one step."""
        out = np.empty(self._batch_length, dtype=np.uint64)
        with self._lock:
            count = self._native.next_into(out)
        return out if count == len(out) else out[:count].copy()

    def batch(self, step: SupportsIndex) -> npt.NDArray[np.uint64]:
        """What `seek(step)` then `next()` would return, without moving the
        cursor (IID replays its stream: see the module's costs)."""
        out = np.empty(self._batch_length, dtype=np.uint64)
        step = _u64(step, "step")
        with self._lock:
            count = self._native.batch_into(step, out)
        return out if count == len(out) else out[:count].copy()

    def seek(self, step: SupportsIndex) -> None:
        """Moves the cursor: the next `next()` returns batch `step`."""
        step = _u64(step, "step")
        with self._lock:
            self._native.seek(step)

    @property
    def step(self) -> int:
        """The step the next `next()` returns."""
        with self._lock:
            return self._native.step()

    @property
    def length(self) -> int:
        """The number of records the sampler draws from."""
        return self._native.length()

    @property
    def batch_size(self) -> int:
        """Indices per step."""
        return self._native.batch_size()

    @property
    def mode(self) -> "Sampler.Mode":
        """SEQUENTIAL, IID, CYCLIC or IID_KEYED, as constructed."""
        return Sampler.Mode(self._native.mode())

    @property
    def seed(self) -> int:
        """The seed every step's batch is derived from."""
        return self._native.seed()

    @property
    def rank(self) -> int:
        """This process's rank: which slice of every global batch it reads."""
        return self._native.rank()

    @property
    def world_size(self) -> int:
        """How many ranks share every global batch."""
        return self._native.world_size()

    @property
    def batches_per_cycle(self) -> int:
        """CYCLIC: batches in one cycle, length // batch_size (1 when
        length < batch_size)."""
        return self._native.batches_per_cycle()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> npt.NDArray[np.uint64]:
        return self.next()

    def __repr__(self) -> str:
        return (f"Sampler({self.length}, {self.batch_size}, "
                f"Sampler.Mode.{self.mode.name}, seed={self.seed}, "
                f"step={self.step})")


def _u64(value: SupportsIndex, name: str) -> int:
    """`value` as an int in [0, 2**64); OverflowError outside it, as the
    reference's cffi layer raises."""
    value = operator.index(value)
    if not 0 <= value < _U64_LIMIT:
        raise OverflowError(f"{name} {value} is outside [0, 2**64)")
    return value
