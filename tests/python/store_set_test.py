"""loaderx.store_set through the binding: a set of dense stores (some
empty) and one of ragged stores read as their concatenation, by index,
slice, array and through the DataLoader (sharded by rank); stats and verify
summed; a member changed after the set was written refused naming it; and
8 processes reading one set through read-only opens whose ranks' batches,
put together, are the single-process batches."""

import multiprocessing
import os
import pathlib

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.store_set import StoreSet
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler

COUNTS = [0, 9, 1, 0, 40, 13, 0]
TOTAL = sum(COUNTS)


@pytest.fixture
def dense_members(tmp_path):
    paths, start = [], 0
    for m, count in enumerate(COUNTS):
        path = tmp_path / f"dense{m}"
        with DenseStore(path, np.int64, (2,)) as store:
            ids = np.arange(start, start + count)
            if count:
                store.append(np.stack([ids, -ids], axis=1))
        paths.append(path)
        start += count
    return paths


@pytest.fixture
def ragged_members(tmp_path):
    paths, start = [], 0
    for m in range(3):
        path = tmp_path / f"ragged{m}"
        with RaggedStore(path, np.int32) as store:
            store.append([np.full(i % 4 + 1, i, np.int32)
                          for i in range(start, start + 5 + m)])
        start += 5 + m
        paths.append(path)
    return paths


def test_dense_set_reads_as_the_concatenation(tmp_path, dense_members):
    with StoreSet.create(tmp_path / "d.lxset", dense_members) as data:
        assert len(data) == TOTAL
        assert data.read_only and data.fixed_width
        assert data.item_shape == (2,) and data.dtype == np.int64
        assert data.members == [os.fspath(p) for p in dense_members]
        assert data[10].tolist() == [10, -10]
        assert data[-1].tolist() == [TOTAL - 1, 1 - TOTAL]
        picks = np.random.default_rng(1).integers(0, TOTAL, 200)
        assert data[picks][:, 0].tolist() == picks.tolist()
        assert data[5:15][:, 0].tolist() == list(range(5, 15))
        assert data.member_of(10) == (4, 0)
        out = np.empty((3, 2), np.int64)
        assert data.gather([49, 0, 10], out) is out
        assert out[:, 0].tolist() == [49, 0, 10]
        with pytest.raises(ValueError, match="out has"):
            data.gather([1, 2], np.empty(3, np.int64))
        assert data.stats()["records"] == TOTAL
        report = data.verify()
        assert report.ok and report.records == TOTAL
        with pytest.raises(IndexError):
            data[TOTAL]


def test_ragged_set_through_a_sharded_loader(tmp_path, ragged_members):
    StoreSet.create(tmp_path / "r.lxset", ragged_members).close()
    with StoreSet(tmp_path / "r.lxset") as tokens:
        assert [t.tolist() for t in tokens[[0, 5, 17]]] == [
            [0], [5, 5], [17, 17]]
        single = Sampler(len(tokens), 6, 2, seed=3)
        ranks = [DataLoader({"t": tokens}, batch_size=6, mode=2, seed=3,
                            rank=r, world_size=3) for r in range(3)]
        for _ in range(20):
            expected = single.next().tolist()
            got = [int(r[0]) for loader in ranks for r in loader.next()["t"]]
            assert got == expected
        for loader in ranks:
            loader.close()


def test_a_changed_member_is_named(tmp_path, dense_members):
    StoreSet.create(tmp_path / "d.lxset", dense_members).close()
    with DenseStore(dense_members[5]) as store:
        store.append(np.array([[7, 7]], np.int64))
    with pytest.raises(RuntimeError, match=r"member 5 \(.*dense5\): "
                       "changed after the set was written"):
        StoreSet(tmp_path / "d.lxset")
    with pytest.raises((FileExistsError, RuntimeError), match="exists"):
        StoreSet.create(tmp_path / "d.lxset", dense_members)


def _rank_batches(manifest, rank, world, steps, queue):
    with StoreSet(manifest) as data, DataLoader(
            {"x": data}, batch_size=16, mode=1, seed=5, rank=rank,
            world_size=world) as loader:
        queue.put((rank, [loader.next()["x"][:, 0].tolist()
                          for _ in range(steps)]))


def test_eight_processes_read_one_set_read_only(tmp_path, dense_members):
    manifest = os.fspath(tmp_path / "d.lxset")
    StoreSet.create(manifest, dense_members).close()
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_rank_batches,
                               args=(manifest, r, 8, 12, queue))
               for r in range(8)]
    for worker in workers:
        worker.start()
    results = dict(queue.get(timeout=300) for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    single = Sampler(TOTAL, 16, 1, seed=5)
    for step in range(12):
        union = [i for r in range(8) for i in results[r][step]]
        assert union == single.next().tolist()
