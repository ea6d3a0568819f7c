"""loaderx.dataloader through the real native build: the reference's quick
start, index alignment across streams, dense and ragged values, transform,
determinism and resumption, and clear errors."""

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler


@pytest.fixture
def streams(tmp_path):
    """100 records: data row i is filled with i, label i is i, tokens i has
    i % 5 + 1 elements all equal to i."""
    n = 100
    data = np.repeat(np.arange(n, dtype=np.float32)[:, None, None], 6,
                     axis=2).repeat(2, axis=1)           # (n, 2, 6)
    label = np.arange(n, dtype=np.int64)
    with DenseStore(tmp_path / "data", data.dtype, data.shape[1:]) as s:
        s.append(data)
    with DenseStore(tmp_path / "label", label.dtype, label.shape[1:]) as s:
        s.append(label)
    with RaggedStore(tmp_path / "tokens", np.int32) as s:
        s.append([np.full(i % 5 + 1, i, np.int32) for i in range(n)])
    opened = {"data": DenseStore(tmp_path / "data"),
              "label": DenseStore(tmp_path / "label"),
              "token": RaggedStore(tmp_path / "tokens")}
    yield opened
    for store in opened.values():
        store.close()


def test_reference_quick_start(streams):
    loader = DataLoader({"data": streams["data"], "label": streams["label"]},
                        batch_size=32, transform=lambda batch: batch)
    for i, batch in enumerate(loader):
        if i >= 256:
            break
    assert batch["data"].shape == (32, 2, 6)
    assert batch["label"].shape == (32,)
    loader.close()


def test_streams_stay_index_aligned(streams):
    with DataLoader(streams, batch_size=16, workers=3, prefetch=5) as loader:
        for _ in range(50):
            batch = next(loader)
            labels = batch["label"]
            np.testing.assert_array_equal(batch["data"][:, 0, 0], labels)
            assert isinstance(batch["token"], list)
            for label, tokens in zip(labels, batch["token"]):
                assert tokens.shape == (label % 5 + 1,)
                assert (tokens == label).all()


def test_batches_are_deterministic_and_resumable(streams):
    def labels(loader, steps):
        return [next(loader)["label"].tolist() for _ in range(steps)]

    with DataLoader(streams, batch_size=8, seed=7) as a, \
            DataLoader(streams, batch_size=8, seed=7) as b:
        first = labels(a, 10)
        assert labels(b, 10) == first
        b.seek(4)
        assert b.step == 4
        assert labels(b, 6) == first[4:]
        sampler = Sampler(100, 8, Sampler.Mode.IID, seed=7)
        assert first[3] == sampler.batch(3).tolist()


def test_cyclic_mode_covers_every_record_once_per_cycle(streams):
    with DataLoader(streams, batch_size=10, mode=Sampler.Mode.CYCLIC,
                    seed=3) as loader:
        seen = np.concatenate([next(loader)["label"] for _ in range(10)])
    assert sorted(seen.tolist()) == list(range(100))


def test_transform_runs_on_each_batch_and_its_errors_surface(streams):
    def collate(batch):
        return {"x": batch["data"].reshape(len(batch["label"]), -1),
                "y": batch["label"]}

    with DataLoader(streams, batch_size=4, transform=collate) as loader:
        batch = next(loader)
        assert set(batch) == {"x", "y"} and batch["x"].shape == (4, 12)

    def broken(batch):
        raise KeyError("no such column")

    with DataLoader(streams, batch_size=4, transform=broken) as loader:
        with pytest.raises(KeyError, match="no such column"):
            next(loader)


def test_unequal_or_empty_streams_are_rejected(streams, tmp_path):
    with DenseStore(tmp_path / "short", np.int64, ()) as s:
        s.append(np.arange(3))
    short = DenseStore(tmp_path / "short")
    with pytest.raises(ValueError, match="equal lengths"):
        DataLoader({"label": streams["label"], "short": short})
    short.close()
    with pytest.raises(ValueError):
        DataLoader({})
    with pytest.raises(ValueError):
        DataLoader(streams, batch_size=0)


def test_closed_loader_refuses_next(streams):
    loader = DataLoader(streams, batch_size=4)
    next(loader)
    loader.close()
    with pytest.raises(RuntimeError, match="closed"):
        next(loader)
