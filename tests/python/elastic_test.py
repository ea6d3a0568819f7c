"""Rank-sharded, elastic loading through the Python binding: ranks of a
world read contiguous slices whose concatenation is the single-process
batch; a run of world 4 for steps [0, k), resumed from its state_dict with
world 2 for [k, m), then world 8, equals the single-process run step by
step (indices and records) in sequential, IID and cyclic modes, over dense
and ragged stores; the state is six numbers; a world that does not divide
the batch, a foreign state, another batch size and a changed store are
refused with ValueError and change nothing."""

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler

N = 203
BATCH = 24
MODES = [Sampler.Mode.SEQUENTIAL, Sampler.Mode.IID, Sampler.Mode.CYCLIC,
         Sampler.Mode.IID_KEYED]


@pytest.fixture
def stores(tmp_path):
    with DenseStore(tmp_path / "dense", np.int64, (2,)) as s:
        s.append(np.stack([np.arange(N), -np.arange(N)], axis=1))
    with RaggedStore(tmp_path / "ragged", np.int32) as s:
        s.append([np.full(i % 5 + 1, i, np.int32) for i in range(N)])
    opened = {"dense": DenseStore(tmp_path / "dense"),
              "ragged": RaggedStore(tmp_path / "ragged")}
    yield opened
    for store in opened.values():
        store.close()


def run(stores, kind, mode, world, steps, state=None):
    """`world` ranks, each resumed from `state`, for `steps` steps: per step
    the ranks' records concatenated in rank order, and the end state."""
    per_step = [[] for _ in range(steps)]
    end = None
    for rank in range(world):
        with DataLoader({kind: stores[kind]}, batch_size=BATCH, mode=mode,
                        seed=11, rank=rank, world_size=world) as loader:
            if state is not None:
                loader.load_state_dict(state)
            for s in range(steps):
                records = loader.next()[kind]
                assert len(records) <= BATCH // world
                per_step[s].extend(np.asarray(r).tolist() for r in records)
            if end is None:
                end = loader.state_dict()
            assert loader.state_dict() == end
    return per_step, end


@pytest.mark.parametrize("kind", ["dense", "ragged"])
@pytest.mark.parametrize("mode", MODES)
def test_worlds_four_two_eight_equal_the_single_run(stores, kind, mode):
    single, _ = run(stores, kind, mode, 1, 18)
    first, after_four = run(stores, kind, mode, 4, 5)
    assert after_four["step"] == 5
    second, after_two = run(stores, kind, mode, 2, 7, after_four)
    assert after_two["step"] == 12
    third, _ = run(stores, kind, mode, 8, 6, after_two)
    assert first + second + third == single
    assert all(len(step) == BATCH for step in single)


@pytest.mark.parametrize("mode", MODES)
def test_sampler_slices_concatenate_to_the_single_batch(mode):
    single = Sampler(101, 12, mode, seed=3)
    shards = [Sampler(101, 12, mode, seed=3, rank=r, world_size=4)
              for r in range(4)]
    assert shards[1].rank == 1 and shards[1].world_size == 4
    for step in range(30):
        expected = single.next()
        got = np.concatenate([shard.next() for shard in shards])
        assert got.tolist() == expected.tolist(), step
    assert (np.concatenate([s.batch(7) for s in shards]).tolist()
            == single.batch(7).tolist())


def test_state_dict_is_six_numbers(stores):
    with DataLoader({"dense": stores["dense"]}, batch_size=BATCH, mode=2,
                    seed=11, rank=1, world_size=4, num_workers=2,
                    transform=lambda b: b) as loader:
        loader.next()
        loader.next()
        state = loader.state_dict()
    assert set(state) == {"step", "seed", "mode", "batch_size", "length",
                          "fingerprint"}
    assert (state["step"], state["seed"], state["mode"],
            state["batch_size"], state["length"]) == (2, 11, 2, BATCH, N)
    with DataLoader({"dense": stores["dense"]}, batch_size=BATCH) as again:
        assert again.state_dict()["fingerprint"] == state["fingerprint"]


def test_a_world_that_does_not_divide_the_batch_is_refused(stores):
    with pytest.raises(ValueError, match=r"world size \(5\) must divide"):
        DataLoader({"dense": stores["dense"]}, batch_size=BATCH,
                   world_size=5)
    with pytest.raises(ValueError, match="rank 4 is outside"):
        Sampler(10, 8, 2, rank=4, world_size=4)


def test_foreign_and_changed_states_are_refused(stores, tmp_path):
    with DataLoader({"dense": stores["dense"]}, batch_size=BATCH) as dense, \
            DataLoader({"ragged": stores["ragged"]},
                       batch_size=BATCH) as ragged:
        dense.next()
        ragged.next()
        ragged.next()
        with pytest.raises(ValueError, match="dataset fingerprint"):
            dense.load_state_dict(ragged.state_dict())
        other = dict(dense.state_dict(), batch_size=48, step=9)
        with pytest.raises(ValueError, match="global batch size is 48"):
            dense.load_state_dict(other)
        with pytest.raises(ValueError, match="missing"):
            dense.load_state_dict({"step": 3})
        assert dense.step == 1  # Nothing changed.
        saved = dense.state_dict()
    stores["dense"].close()
    with DenseStore(tmp_path / "dense") as writable:
        writable.append(np.array([[N, -N]], np.int64))
    with DenseStore(tmp_path / "dense") as grown, \
            DataLoader({"dense": grown}, batch_size=BATCH) as loader:
        with pytest.raises(ValueError, match="changed since it was saved"):
            loader.load_state_dict(saved)
