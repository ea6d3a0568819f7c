"""loaderx.zsampler through the real native build: loaderx 1.7.7's Sampler
API (int modes, seed 42, uint64 batches, OverflowError for out-of-range
ints), its sample values, seek and batch(step), the full 64-bit range, and
clear errors where 1.7.7 crashes. The live comparison with 1.7.7 itself is
tests/oracle/sampler_oracle_test.py."""

import numpy as np
import pytest

from loaderx.zsampler import Sampler

MODES = [Sampler.Mode.SEQUENTIAL, Sampler.Mode.IID, Sampler.Mode.CYCLIC,
         Sampler.Mode.IID_KEYED]


def test_reference_quick_start():
    sampler = Sampler(1_000_000, 256, Sampler.Mode.IID, seed=42)
    indices = sampler.next()
    assert isinstance(indices, np.ndarray)
    assert indices.dtype == np.uint64
    assert indices.shape == (256,)
    assert indices.max() < 1_000_000
    assert sampler.step == 1


def test_reference_sample_values_with_the_default_seed():
    cyclic = Sampler(10, 4, Sampler.Mode.CYCLIC)
    assert [cyclic.next().tolist() for _ in range(3)] == [
        [4, 9, 2, 3], [0, 7, 8, 5], [6, 7, 3, 4]]
    assert Sampler(1000, 8, Sampler.Mode.IID).next().tolist() == [
        520, 433, 412, 601, 163, 713, 142, 216]
    assert Sampler(1000, 8, Sampler.Mode.CYCLIC).next().tolist() == [
        319, 605, 475, 179, 17, 810, 826, 938]
    assert Sampler(10, 4, 2).seed == 42


def test_modes_are_the_reference_ints():
    assert (Sampler.Mode.SEQUENTIAL, Sampler.Mode.IID, Sampler.Mode.CYCLIC) == (0, 1, 2)
    assert Sampler.Mode.IID_KEYED == 3
    by_int = Sampler(1000, 8, 1, seed=5)
    by_name = Sampler(1000, 8, Sampler.Mode.IID, seed=5)
    assert (by_int.next() == by_name.next()).all()
    assert by_int.mode is Sampler.Mode.IID
    assert Sampler(10, 2, np.uint8(2)).mode is Sampler.Mode.CYCLIC


def test_sequential_is_a_circular_window():
    sampler = Sampler(10, 4, Sampler.Mode.SEQUENTIAL)
    assert [sampler.next().tolist() for _ in range(3)] == [
        [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]
    assert Sampler(3, 5, Sampler.Mode.SEQUENTIAL).next().tolist() == [0, 1, 2, 0, 1]


def test_sequential_seek_wraps_as_the_reference():
    # 1.7.7: cursor = (step * batch mod 2**64) % length.
    sampler = Sampler(10, 4, Sampler.Mode.SEQUENTIAL)
    sampler.seek(2**62)
    assert sampler.next().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
def test_seek_resumes_an_uninterrupted_run(mode):
    run = Sampler(1000, 16, mode, seed=7)
    batches = [run.next() for _ in range(40)]
    resumed = Sampler(1000, 16, mode, seed=7)
    for step in (30, 3, 17, 0, 39):
        resumed.seek(step)
        assert resumed.step == step
        assert (resumed.next() == batches[step]).all()


@pytest.mark.parametrize("mode", MODES)
def test_batch_is_seek_then_next_without_moving(mode):
    sampler = Sampler(100, 8, mode, seed=3)
    for _ in range(5):
        sampler.next()
    for step in (9, 2, 5, 0):
        twin = Sampler(100, 8, mode, seed=3)
        twin.seek(step)
        assert (sampler.batch(step) == twin.next()).all()
    assert sampler.step == 5
    fresh = Sampler(100, 8, mode, seed=3)
    fresh.seek(5)
    assert (sampler.next() == fresh.next()).all()


def test_cyclic_repeats_nothing_within_a_cycle():
    sampler = Sampler(1000, 64, Sampler.Mode.CYCLIC, seed=1)
    assert sampler.batches_per_cycle == 15
    cycle = np.concatenate([sampler.next() for _ in range(15)])
    assert len(np.unique(cycle)) == 15 * 64
    next_cycle = np.concatenate([sampler.next() for _ in range(15)])
    assert len(np.unique(next_cycle)) == 15 * 64
    assert not (cycle == next_cycle).all()


def test_cyclic_below_one_batch_returns_short_batches():
    sampler = Sampler(3, 8, Sampler.Mode.CYCLIC)
    batches = [sampler.next() for _ in range(10)]
    assert all(sorted(b.tolist()) == [0, 1, 2] for b in batches)
    assert all(b.dtype == np.uint64 for b in batches)
    assert len({tuple(b.tolist()) for b in batches}) > 1  # fresh each step
    assert sampler.batch(4).tolist() == batches[4].tolist()


def test_the_full_64_bit_range_crosses_the_binding():
    top = 2**64 - 1
    sequential = Sampler(top, 3, Sampler.Mode.SEQUENTIAL, seed=top)
    assert (sequential.length, sequential.seed) == (top, top)
    sequential.seek((top - 1) // 3)
    assert sequential.next().tolist() == [top - 3, top - 2, top - 1]
    assert sequential.next().tolist() == [0, 1, 2]
    # Uniform over [0, 2**64 - 1): about half the indices have the top bit.
    iid = Sampler(top, 256, Sampler.Mode.IID, seed=2**63 + 1)
    indices = [int(i) for i in iid.next()]
    assert all(0 <= i < top for i in indices)
    assert 64 < sum(i >= 2**63 for i in indices) < 192
    far = 2**64 - 2
    cyclic = Sampler(2**40 + 3, 8, Sampler.Mode.CYCLIC)
    cyclic.seek(far)
    assert cyclic.step == far
    cyclic.next()
    assert cyclic.step == far + 1


def test_endless_iterator():
    sampler = Sampler(5, 2, Sampler.Mode.SEQUENTIAL)
    batches = [batch.tolist() for _, batch in zip(range(4), sampler)]
    assert batches == [[0, 1], [2, 3], [4, 0], [1, 2]]


def test_repr_names_the_mode_and_step():
    sampler = Sampler(10, 2, 2, seed=2**64 - 1)
    sampler.next()
    assert repr(sampler) == ("Sampler(10, 2, Sampler.Mode.CYCLIC, "
                             "seed=18446744073709551615, step=1)")


@pytest.mark.parametrize("args", [
    (-1, 4, 0), (10, -1, 0), (10, 4, 0, -1), (2**64, 4, 0), (10, 2**64, 0),
    (10, 4, 0, 2**64), (10, 4, -1), (10, 4, 256),
])
def test_out_of_range_ints_are_overflow_errors_as_in_the_reference(args):
    with pytest.raises(OverflowError):
        Sampler(*args)


@pytest.mark.parametrize("args", [(0, 4, 0), (0, 4, 2), (10, 0, 1), (10, 0, 2),
                                  (10, 2, 4), (10, 2, 7)])
def test_what_the_reference_crashes_on_is_a_value_error(args):
    # 1.7.7 dies with SIGFPE, returns zeros, or runs mode 7 as sequential.
    with pytest.raises(ValueError):
        Sampler(*args)


def test_seek_and_batch_check_their_step():
    sampler = Sampler(10, 2, Sampler.Mode.IID)
    for bad in (-1, 2**64):
        with pytest.raises(OverflowError):
            sampler.seek(bad)
        with pytest.raises(OverflowError):
            sampler.batch(bad)
    with pytest.raises(TypeError):
        sampler.seek(1.5)
    with pytest.raises(TypeError):
        Sampler(10.0, 2, 0)
    assert sampler.step == 0


def test_native_layer_rejects_a_wrong_destination():
    sampler = Sampler(10, 4, Sampler.Mode.IID)
    with pytest.raises(ValueError, match="one batch"):
        sampler._native.next_into(np.empty(3, dtype=np.uint64))
    strided = np.empty(8, dtype=np.uint64)[::2]
    with pytest.raises(ValueError, match="contiguous"):
        sampler._native.next_into(strided)
    read_only = np.empty(4, dtype=np.uint64)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sampler._native.next_into(read_only)
    assert sampler.step == 0
