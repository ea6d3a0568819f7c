"""Sampler cases shared by the oracle test and the golden-file generator.

A case is `(mode, length, batch_size, seed, calls)`, where `calls` is a list
of `("next",)` and `("seek", step)`. `DRIVER` is a self-contained script that
runs a JSON list of cases against whichever `loaderx.zsampler` it imports and
prints, as its last line, a JSON list with one entry per case: the indices
of each `next()` in order. The same script runs in the reference's venv (via
`reference.run_reference_json`) and, with `run_driver`, in this process
against our build, so both sides run exactly the same calls.

The grids never hold a length or batch size of 0: 1.7.7 dies with SIGFPE
on them.
"""

import json
import os
import tempfile

DRIVER = r"""
import json, sys
from loaderx.zsampler import Sampler

def run(cases):
    results = []
    for mode, length, batch_size, seed, calls in cases:
        sampler = Sampler(length, batch_size, mode, seed)
        batches = []
        for call in calls:
            if call[0] == "next":
                batches.append([int(i) for i in sampler.next()])
            else:
                sampler.seek(call[1])
        results.append(batches)
    return results

with open(sys.argv[1]) as f:
    cases = json.load(f)
print(json.dumps(run(cases)))
"""

SEQUENTIAL, IID, CYCLIC = 0, 1, 2
MODES = (SEQUENTIAL, IID, CYCLIC)
LENGTHS = (1, 2, 3, 7, 10, 1000, 2**31 + 1, 2**32 + 5, 2**40 + 3, 2**63 + 1,
           2**64 - 1)
BATCH_SIZES = (1, 3, 8, 256)
SEEDS = (0, 1, 42, 2**63 + 1, 2**64 - 1)
# Sequential and cyclic seek in O(1): steps far out, where step * batch_size
# wraps modulo 2^64, and the largest step.
LARGE_STEPS = (2**40 + 7, 2**62 + 3, 2**64 - 1)


def batches_per_cycle(length, batch_size):
    """1.7.7's steps per cycle: ceil(usable / batch_size)."""
    usable = length // batch_size * batch_size if length >= batch_size else length
    return -(-usable // batch_size)


def reference_seek_divides_by_zero(mode, length, batch_size):
    """1.7.7's cyclic seek computes ceil(usable / batch_size) as
    (usable + batch_size - 1) // batch_size in wrapping u64, which is 0 when
    the sum passes 2^64 (length 2^64 - 1 with batch size 3, say); its seek
    then dies with SIGFPE. Ours computes the true value; such cases get no
    seeks in the comparison."""
    if mode != CYCLIC:
        return False
    usable = length // batch_size * batch_size if length >= batch_size else length
    return usable + batch_size - 1 >= 2**64


def calls_for(mode, length, batch_size, seek_far=True, repeat=2):
    """Consecutive next()s, then seeks, each followed by `repeat` next()s:
    to just before and just past a cycle boundary, back to an earlier step,
    and (sequential and cyclic) far out. IID replays its stream on every
    seek, so its seeks stay moderate."""
    nxt = ("next",)
    calls = [nxt] * (repeat + 1)
    if mode == IID:
        steps = [5, 50, 7, 0]
    else:
        per_cycle = batches_per_cycle(length, batch_size)
        steps = [per_cycle - 1, per_cycle + 1, 1, 2 * per_cycle]
        if seek_far:
            steps += LARGE_STEPS
    if reference_seek_divides_by_zero(mode, length, batch_size):
        steps = []
    for step in steps:
        if step < 2**64:
            calls += [("seek", step)] + [nxt] * repeat
    return calls


def oracle_grid():
    """The live oracle comparison: every mode, length, batch size and seed,
    plus long runs of consecutive next()s through many cycles."""
    cases = [(mode, length, batch_size, seed, calls_for(mode, length, batch_size))
             for mode in MODES for length in LENGTHS for batch_size in BATCH_SIZES
             for seed in SEEDS]
    cases += [(mode, length, batch_size, 42, [("next",)] * 40)
              for mode in MODES for length in (1, 2, 3, 7, 10, 1000)
              for batch_size in BATCH_SIZES]
    return cases


def golden_grid():
    """The committed golden file's cases, which both the C++ and the Java
    tests read: every mode and length; batch size 3 with every seed, 1 and 8
    with seed 42, 256 on two lengths; fewer calls than the live grid, so the
    file stays small."""
    cases = []
    for mode in MODES:
        for length in LENGTHS:
            for seed in (0, 42, 2**64 - 1):
                cases.append((mode, length, 3, seed,
                              calls_for(mode, length, 3, repeat=1)))
            for seed in (1, 2**63 + 1):
                cases.append((mode, length, 3, seed,
                              calls_for(mode, length, 3, seek_far=False, repeat=1)))
            for batch_size in (1, 8):
                cases.append((mode, length, batch_size, 42,
                              calls_for(mode, length, batch_size, repeat=1)))
        for length in (1000, 2**40 + 3):
            cases.append((mode, length, 256, 42,
                          [("next",), ("seek", 5), ("next",)]))
    return cases


def run_driver(cases, runner):
    """Writes `cases` to a temporary JSON file and returns what
    `runner(DRIVER, path)` returns (the parsed results)."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "cases.json")
        with open(path, "w") as f:
            json.dump(cases, f)
        return runner(DRIVER, path)


def run_here(script, path):
    """Runs the driver in this process, against the `loaderx` it imports,
    and returns its parsed last line."""
    import contextlib
    import io
    import sys

    output = io.StringIO()
    argv = sys.argv
    sys.argv = ["driver", path]
    try:
        with contextlib.redirect_stdout(output):
            exec(compile(script, "<sampler driver>", "exec"), {"__name__": "driver"})
    finally:
        sys.argv = argv
    return json.loads(output.getvalue().strip().splitlines()[-1])
