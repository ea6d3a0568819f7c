"""Our sampler and loader against the published loaderx 1.7.7, live.

The reference runs in its own venv and process (`reference.py`); ours runs
in this one. Both execute the same driver script (`sampler_cases.DRIVER`)
over the same grid: every mode (sequential, IID, cyclic), lengths from 1 to
2^64 - 1, batch sizes 1 to 256, seeds up to 2^64 - 1, consecutive next()s
and seeks (far out for sequential and cyclic, moderate for IID, whose seek
replays its stream). Every batch must be identical. The reference is never
given a length or batch size of 0 (it dies with SIGFPE).
"""

import json
import os
import pathlib
import signal

import pytest

import make_sampler_golden
import reference
import sampler_cases


def _ours_is_loaderx_under_test():
    import loaderx.zsampler

    assert "site-packages" not in loaderx.zsampler.__file__
    assert hasattr(loaderx.zsampler.Sampler.Mode, "IID_KEYED")


def test_every_mode_length_batch_and_seed_matches_the_reference():
    _ours_is_loaderx_under_test()
    cases = sampler_cases.oracle_grid()
    theirs = sampler_cases.run_driver(cases, reference.run_reference_json)
    ours = sampler_cases.run_driver(cases, sampler_cases.run_here)
    assert len(theirs) == len(ours) == len(cases)
    compared, mismatches = 0, []
    for case, their_batches, our_batches in zip(cases, theirs, ours):
        assert len(their_batches) == len(our_batches)
        for call, (their, our) in enumerate(zip(their_batches, our_batches)):
            compared += 1
            if their != our:
                mismatches.append(f"mode {case[0]} length {case[1]} batch "
                                  f"{case[2]} seed {case[3]}, batch {call}: "
                                  f"1.7.7 {their[:8]}, ours {our[:8]}")
    summary = (f"{compared} batches compared with loaderx 1.7.7 over "
               f"{len(cases)} samplers, {len(mismatches)} differ\n")
    print(summary)
    outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if outputs:  # Bazel keeps it beside the test log.
        pathlib.Path(outputs, "sampler_oracle_summary.txt").write_text(summary)
    assert not mismatches, "\n".join(mismatches[:20])
    assert compared > 10000


def test_the_committed_golden_file_is_what_the_reference_answers():
    golden = pathlib.Path("tests/data/sampler_golden.txt")  # From runfiles.
    assert golden.read_text() == make_sampler_golden.golden_text(), (
        f"{golden} is stale: regenerate it with "
        "python3 tests/oracle/make_sampler_golden.py")


_LOADER_DRIVER = r"""
import json, sys
import numpy as np
from loaderx.dataloader import DataLoader

class Records:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitems__(self, indices):
        return np.asarray(indices).astype(np.int64) * 10

args = json.loads(sys.argv[1])
loader = DataLoader({"x": Records(args["length"])}, *args["positional"],
                    **args["keywords"])
batches = [[int(v) for v in next(loader)["x"]] for _ in range(args["steps"])]
loader.close()
print(json.dumps({"batches": batches}))
"""


@pytest.mark.parametrize("length, positional, keywords", [
    (1000, [1], {}),                                  # defaults: cyclic, seed 42, 256
    (1000, [1, 16], {"mode": 1, "seed": 2**64 - 1}),  # IID
    (10, [1, 4, 2, 0, 7], {}),                        # sequential, positionally
    (10, [1, 4], {"mode": 2, "seed": 3}),             # cyclic, several cycles
    (3, [1, 8], {}),                                  # cyclic, short batches
])
def test_the_loader_visits_records_in_the_reference_order(length, positional,
                                                          keywords):
    # With one transform worker 1.7.7 delivers in step order (with more, in
    # completion order; ours is in step order always, which
    # tests/python/dataloader_test.py checks). The same driver runs on both
    # sides.
    args = json.dumps({"length": length, "positional": positional,
                       "keywords": keywords, "steps": 12})
    theirs = reference.run_reference_json(_LOADER_DRIVER, args)
    ours = sampler_cases.run_here(_LOADER_DRIVER, args)
    assert len(ours["batches"]) == 12
    assert ours == theirs


@pytest.mark.parametrize("script", [
    "Sampler(0, 4, 0).next()",                  # length 0, sequential
    "Sampler(10, 0, 2).next()",                 # batch 0, cyclic
    "Sampler(2**64 - 1, 3, 2).seek(1)",         # cyclic steps-per-cycle wraps to 0
])
def test_where_the_reference_dies_ours_raises_or_answers(script):
    done = reference.run_reference(
        "from loaderx.zsampler import Sampler\n" + script, check=False)
    assert done.returncode == -signal.SIGFPE
    from loaderx.zsampler import Sampler

    if "2**64 - 1" in script:
        sampler = Sampler(2**64 - 1, 3, 2)
        sampler.seek(1)
        assert len(sampler.next()) == 3
    else:
        with pytest.raises(ValueError):
            exec(script, {"Sampler": Sampler})
