"""Sampler benchmark: loaderx.zsampler against NumPy's modern API, one run.

Index generation on its own, as in the reference design's sampler table:
a 1M index space, IID draws (with replacement) against
`numpy.random.Generator.integers`, and cyclic draws (without replacement)
against a `Generator.permutation` of the whole space sliced into batches
(its cost spread over the batches of one cycle). Before timing, every
contender's output is checked: dtype, shape, range, determinism for a seed,
and, for cyclic, no index twice within a cycle.

    bazel run --config=opt //tools/bench:bench_sampler -- [--length N]
        [--batch-sizes 64,256,1024,4096] [--repeat 5]

Prints microseconds per batch (best of --repeat runs) and loaderx's speedup.
"""

import argparse
import timeit

import numpy as np

from loaderx.zsampler import Sampler


def validate(length, batch_size):
    """Checks each contender's output before anything is timed."""
    iid = Sampler(length, batch_size, Sampler.Mode.IID, seed=1)
    again = Sampler(length, batch_size, Sampler.Mode.IID, seed=1)
    for _ in range(10):
        batch = iid.next()
        assert batch.dtype == np.uint64 and batch.shape == (batch_size,)
        assert batch.max() < length
        assert (batch == again.next()).all(), "IID is not deterministic"
    rng = np.random.default_rng(1)
    batch = rng.integers(0, length, size=batch_size)
    assert batch.shape == (batch_size,) and 0 <= batch.min() and batch.max() < length

    cyclic = Sampler(length, batch_size, Sampler.Mode.CYCLIC, seed=1)
    cycle = np.concatenate([cyclic.next() for _ in range(cyclic.batches_per_cycle)])
    assert len(np.unique(cycle)) == len(cycle), "cyclic repeated an index"
    assert cycle.dtype == np.uint64 and cycle.max() < length
    permutation = np.random.default_rng(1).permutation(length)
    assert len(np.unique(permutation)) == length


def best_of(statement, number, repeat):
    """Microseconds per call, best of `repeat` runs of `number` calls."""
    return min(timeit.repeat(statement, number=number, repeat=repeat)) / number * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=1_000_000)
    parser.add_argument("--batch-sizes", default="64,256,1024,4096")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    length = args.length
    print(f"index space {length:,}; microseconds per batch, best of {args.repeat}")
    print(f"{'mode':8} {'batch':>6} {'loaderx':>10} {'numpy':>10} {'speedup':>8}")
    for batch_size in (int(b) for b in args.batch_sizes.split(",")):
        validate(length, batch_size)
        number = max(200, 400_000 // batch_size)

        iid = Sampler(length, batch_size, Sampler.Mode.IID, seed=42)
        rng = np.random.default_rng(42)
        ours = best_of(iid.next, number, args.repeat)
        theirs = best_of(lambda: rng.integers(0, length, size=batch_size),
                         number, args.repeat)
        print(f"{'iid':8} {batch_size:>6} {ours:>10.2f} {theirs:>10.2f} "
              f"{theirs / ours:>7.2f}x")

        cyclic = Sampler(length, batch_size, Sampler.Mode.CYCLIC, seed=42)
        batches = length // batch_size
        per_cycle = best_of(lambda: np.random.default_rng(42).permutation(length),
                            1, args.repeat) / batches
        permutation = np.random.default_rng(42).permutation(length)
        # A view per batch: the cheapest way NumPy can hand one out.
        slicing = best_of(lambda: permutation[:batch_size], number, args.repeat)
        ours = best_of(cyclic.next, number, args.repeat)
        theirs = per_cycle + slicing
        print(f"{'cyclic':8} {batch_size:>6} {ours:>10.2f} {theirs:>10.2f} "
              f"{theirs / ours:>7.2f}x")


if __name__ == "__main__":
    main()
