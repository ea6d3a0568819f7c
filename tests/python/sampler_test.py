"""loaderx.zsampler through the real native build: the reference's Sampler
API, numpy batches, purity in (seed, step), and errors as ValueError."""

import numpy as np
import pytest

from loaderx.zsampler import Sampler


def test_reference_quick_start():
    sampler = Sampler(1_000_000, 256, Sampler.Mode.IID, seed=42)
    indices = sampler.next()
    assert isinstance(indices, np.ndarray)
    assert indices.dtype == np.int64
    assert indices.shape == (256,)
    assert indices.min() >= 0 and indices.max() < 1_000_000
    assert sampler.step == 1


def test_sequential_is_a_circular_window():
    sampler = Sampler(10, 4, Sampler.Mode.SEQUENTIAL)
    assert sampler.next().tolist() == [0, 1, 2, 3]
    assert sampler.next().tolist() == [4, 5, 6, 7]
    assert sampler.next().tolist() == [8, 9, 0, 1]


def test_batches_are_a_pure_function_of_seed_and_step():
    a = Sampler(1000, 32, Sampler.Mode.IID, seed=7)
    b = Sampler(1000, 32, "iid", seed=7)
    first = [a.next() for _ in range(5)]
    assert all((b.batch(step) == batch).all() for step, batch in enumerate(first))
    assert b.step == 0  # batch() leaves the cursor alone
    b.seek(3)
    assert (b.next() == first[3]).all()
    other = Sampler(1000, 32, Sampler.Mode.IID, seed=8)
    assert not (other.batch(0) == first[0]).all()


def test_cyclic_repeats_nothing_within_a_cycle():
    sampler = Sampler(1000, 64, Sampler.Mode.CYCLIC, seed=1)
    assert sampler.batches_per_cycle == 15
    cycle = np.concatenate([sampler.next() for _ in range(15)])
    assert len(np.unique(cycle)) == 15 * 64
    next_cycle = np.concatenate([sampler.next() for _ in range(15)])
    assert len(np.unique(next_cycle)) == 15 * 64
    assert not (cycle == next_cycle).all()


def test_endless_iterator():
    sampler = Sampler(5, 2, Sampler.Mode.SEQUENTIAL)
    batches = [batch.tolist() for _, batch in zip(range(4), sampler)]
    assert batches == [[0, 1], [2, 3], [4, 0], [1, 2]]


def test_large_and_negative_seeds_use_all_64_bits():
    high = Sampler(100, 8, Sampler.Mode.IID, seed=2**64 - 1)
    minus_one = Sampler(100, 8, Sampler.Mode.IID, seed=-1)
    assert (high.batch(0) == minus_one.batch(0)).all()
    assert high.seed == 2**64 - 1
    with pytest.raises(ValueError):
        Sampler(100, 8, Sampler.Mode.IID, seed=2**64)


@pytest.mark.parametrize("args", [
    (0, 4, "iid"),
    (10, 0, "iid"),
    (10, 11, "cyclic"),
    (-5, 2, "sequential"),
])
def test_impossible_configurations_are_value_errors(args):
    with pytest.raises(ValueError):
        Sampler(*args)


def test_unknown_mode_is_value_error():
    with pytest.raises(ValueError):
        Sampler(10, 2, "shuffle")


def test_negative_step_is_value_error():
    sampler = Sampler(10, 2, Sampler.Mode.IID)
    with pytest.raises(ValueError):
        sampler.seek(-1)
    with pytest.raises(ValueError):
        sampler.batch(-1)


def test_native_layer_rejects_a_wrong_destination():
    sampler = Sampler(10, 4, Sampler.Mode.IID)
    with pytest.raises(ValueError, match="one batch"):
        sampler._native.next_into(np.empty(3, dtype=np.int64))
    strided = np.empty(8, dtype=np.int64)[::2]
    with pytest.raises(ValueError, match="contiguous"):
        sampler._native.next_into(strided)
    read_only = np.empty(4, dtype=np.int64)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sampler._native.next_into(read_only)
    assert sampler.step == 0
