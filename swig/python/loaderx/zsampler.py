"""The step-based index sampler.

    from loaderx.zsampler import Sampler

    sampler = Sampler(1_000_000, 256, Sampler.Mode.IID, seed=42)
    indices = sampler.next()          # int64 array of shape (256,)

Every batch is a pure function of (seed, step): `seek(step)` resumes a run
exactly, and `batch(step)` recomputes any step without moving the cursor.
Modes: SEQUENTIAL (a circular sliding window), IID (uniform with
replacement, unbiased), CYCLIC (a fresh permutation each cycle, no index
twice within one; the remainder of length / batch_size is dropped, a
different one each cycle). A sampler is an endless iterator.
"""

import enum

import numpy as np

from loaderx import loaderx_native as _native


class Sampler:
    """Batches of `batch_size` indices into `range(length)`."""

    class Mode(enum.Enum):
        SEQUENTIAL = "sequential"
        IID = "iid"
        CYCLIC = "cyclic"

    def __init__(self, length, batch_size, mode, seed=0):
        mode = Sampler.Mode(mode)
        self._native = _native.IndexSampler(
            int(length), int(batch_size), mode.value, _as_int64(seed))
        self._mode = mode
        self._seed = int(seed)

    def next(self):
        """The batch at the current step, as a new int64 array; advances."""
        out = np.empty(self._native.batch_size(), dtype=np.int64)
        self._native.next_into(out)
        return out

    def batch(self, step):
        """The batch at `step`, without moving the cursor."""
        out = np.empty(self._native.batch_size(), dtype=np.int64)
        self._native.batch_into(int(step), out)
        return out

    def seek(self, step):
        """Moves the cursor: the next `next()` returns batch `step`."""
        self._native.seek(int(step))

    @property
    def step(self):
        return self._native.step()

    @property
    def length(self):
        return self._native.length()

    @property
    def batch_size(self):
        return self._native.batch_size()

    @property
    def mode(self):
        return self._mode

    @property
    def seed(self):
        return self._seed

    @property
    def batches_per_cycle(self):
        """CYCLIC: batches in one cycle, length // batch_size."""
        return self._native.batches_per_cycle()

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def __repr__(self):
        return (f"Sampler({self.length}, {self.batch_size}, "
                f"Sampler.Mode.{self._mode.name}, seed={self.seed}, "
                f"step={self.step})")


def _as_int64(seed):
    """A seed in [-2**63, 2**64) as the int64 with the same 64 bits."""
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError(f"seed {seed} does not fit in 64 bits")
    return seed - (1 << 64) if seed >= (1 << 63) else seed
