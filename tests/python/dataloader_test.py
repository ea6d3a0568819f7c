"""loaderx.dataloader through the real native build: loaderx 1.7.7's
signature and defaults, index alignment across dense and ragged streams,
any object with __len__ and __getitems__ as a stream, delivery in step
order, exact resumption, error propagation with tracebacks, and no threads
left behind."""

import gc
import inspect
import random
import threading
import time
import traceback

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler

N = 100


@pytest.fixture
def streams(tmp_path):
    """100 records: data row i is filled with i, label i is i, tokens i has
    i % 5 + 1 elements all equal to i."""
    data = np.repeat(np.arange(N, dtype=np.float32)[:, None, None], 6,
                     axis=2).repeat(2, axis=1)           # (N, 2, 6)
    label = np.arange(N, dtype=np.int64)
    with DenseStore(tmp_path / "data", data.dtype, data.shape[1:]) as s:
        s.append(data)
    with DenseStore(tmp_path / "label", label.dtype, label.shape[1:]) as s:
        s.append(label)
    with RaggedStore(tmp_path / "tokens", np.int32) as s:
        s.append([np.full(i % 5 + 1, i, np.int32) for i in range(N)])
    opened = {"data": DenseStore(tmp_path / "data"),
              "label": DenseStore(tmp_path / "label"),
              "token": RaggedStore(tmp_path / "tokens")}
    yield opened
    for store in opened.values():
        store.close()


class Records:
    """A stream that is not a store: record i is 10 * i. Remembers the
    index arrays it was asked for; `fail_on` makes that call raise."""

    def __init__(self, n=N, fail_on=None):
        self.n, self.fail_on, self.calls = n, fail_on, []
        self.lock = threading.Lock()

    def __len__(self):
        return self.n

    def __getitems__(self, indices):
        with self.lock:
            self.calls.append(indices)
            if len(self.calls) == self.fail_on:
                raise LookupError(f"gather {self.fail_on} failed")
        return np.asarray(indices, dtype=np.int64) * 10


def sampler_run(steps, batch_size, mode=2, seed=42, length=N, start=0):
    sampler = Sampler(length, batch_size, mode, seed)
    sampler.seek(start)
    return [sampler.next().tolist() for _ in range(steps)]


def test_reference_quick_start(streams):
    loader = DataLoader({"data": streams["data"], "label": streams["label"]},
                        batch_size=32, transform=lambda batch: batch)
    for i, batch in enumerate(loader):
        if i >= 256:
            break
    assert batch["data"].shape == (32, 2, 6)
    assert batch["label"].shape == (32,)
    loader.close()


def test_signature_and_defaults_are_the_reference():
    parameters = inspect.signature(DataLoader).parameters
    assert list(parameters) == ["streams", "num_workers", "batch_size",
                                "prefetch_size", "mode", "seed", "transform",
                                "rank", "world_size"]
    # loaderx's additions are keyword-only: 1.7.7's positional calls work.
    assert all(parameters[p].kind is inspect.Parameter.KEYWORD_ONLY
               for p in ("rank", "world_size"))
    assert [parameters[p].default for p in list(parameters)[1:6]] == [
        4, 256, 4, 2, 42]
    records = Records(1000)
    with DataLoader({"x": records}) as loader:
        assert loader.sampler.mode == Sampler.Mode.CYCLIC
        assert (loader.sampler.seed, loader.sampler.batch_size) == (42, 256)
        assert loader.sampler.length == 1000
        batch = next(loader)
        assert batch["x"].tolist() == [10 * i for i in sampler_run(1, 256, length=1000)[0]]
    # Positionally: num_workers, batch_size, prefetch_size, mode, seed.
    with DataLoader([("x", Records())], 2, 8, 1, 1, 7) as loader:
        assert (loader.sampler.batch_size, loader.sampler.mode,
                loader.sampler.seed) == (8, Sampler.Mode.IID, 7)
        assert (next(loader)["x"] // 10).tolist() == sampler_run(1, 8, 1, 7)[0]


def test_streams_stay_index_aligned(streams):
    with DataLoader(streams, num_workers=3, batch_size=16,
                    prefetch_size=5) as loader:
        for _ in range(50):
            batch = next(loader)
            labels = batch["label"]
            np.testing.assert_array_equal(batch["data"][:, 0, 0], labels)
            assert isinstance(batch["token"], list)
            for label, tokens in zip(labels, batch["token"]):
                assert tokens.shape == (label % 5 + 1,)
                assert (tokens == label).all()


def test_the_references_queue_bounds_are_readable(streams):
    # 1.7.7 code reads loader.raw_batches.maxsize and loader.batches.maxsize.
    for prefetch, bound in ((7, 7), (1, 1), (0, 1)):
        with DataLoader(streams, num_workers=3, batch_size=4,
                        prefetch_size=prefetch) as loader:
            assert loader.raw_batches.maxsize == 1
            assert loader.batches.maxsize == bound
            next(loader)
            assert loader.batches.maxsize == bound
            with pytest.raises(AttributeError):
                loader.batches.maxsize = 3


def test_getitems_gets_the_samplers_uint64_indices():
    records = Records()
    with DataLoader({"x": records}, batch_size=8, mode=1, seed=3) as loader:
        batches = [next(loader)["x"] for _ in range(4)]
    expected = sampler_run(4, 8, 1, 3)
    assert [(b // 10).tolist() for b in batches] == expected
    # Workers gather concurrently: the calls need not come in step order.
    for call in records.calls:
        assert isinstance(call, np.ndarray) and call.dtype == np.uint64
    assert expected[0] in [call.tolist() for call in records.calls]


def test_a_stream_without_getitems_is_indexed():
    column = np.arange(N) * 3  # An ndarray: __len__ and __getitem__ only.
    with DataLoader({"c": column, "x": Records()}, batch_size=5) as loader:
        batch = next(loader)
    np.testing.assert_array_equal(batch["c"] * 10, batch["x"] * 3)
    with pytest.raises(TypeError, match="'bad'"):
        DataLoader({"bad": set(range(N))})


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_batches_arrive_in_step_order(mode):
    def jittery(batch):  # Workers finish out of order.
        time.sleep(random.random() * 0.01)
        return batch

    with DataLoader({"x": Records()}, num_workers=4, batch_size=7,
                    prefetch_size=3, mode=mode, seed=11,
                    transform=jittery) as loader:
        got = [(next(loader)["x"] // 10).tolist() for _ in range(30)]
        assert loader.step == 30
    assert got == sampler_run(30, 7, mode, 11)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_seek_resumes_exactly_as_an_uninterrupted_run(streams, mode):
    def labels(loader, steps):
        return [next(loader)["label"].tolist() for _ in range(steps)]

    with DataLoader(streams, batch_size=8, mode=mode, seed=7) as whole:
        uninterrupted = labels(whole, 30)
    assert uninterrupted == sampler_run(30, 8, mode, 7)
    with DataLoader(streams, batch_size=8, mode=mode, seed=7) as resumed:
        resumed.seek(12)
        assert resumed.step == 12
        assert labels(resumed, 18) == uninterrupted[12:]
        resumed.seek(3)  # Back, past prefetched steps.
        assert labels(resumed, 4) == uninterrupted[3:7]
    # Seeking the sampler itself, as 1.7.7 code would, is the same.
    with DataLoader(streams, batch_size=8, mode=mode, seed=7) as loader:
        loader.sampler.seek(20)
        assert labels(loader, 5) == uninterrupted[20:25]
        loader.sampler.seek(2)
        assert labels(loader, 3) == uninterrupted[2:5]
        assert loader.step == 5


def test_a_transform_error_is_raised_by_its_step_with_its_traceback():
    def explode_on_step_three(batch):
        if batch["x"].tolist() == bad_batch:
            raise KeyError("no such column")
        return batch

    bad_batch = [10 * i for i in sampler_run(4, 4)[3]]
    with DataLoader({"x": Records()}, batch_size=4,
                    transform=explode_on_step_three) as loader:
        for _ in range(3):
            next(loader)
        with pytest.raises(KeyError, match="no such column") as raised:
            next(loader)
        frames = [frame.name for frame in traceback.extract_tb(raised.value.__traceback__)]
        assert "explode_on_step_three" in frames
        assert loader.step == 4
        # The loader goes on with the following step.
        assert (next(loader)["x"] // 10).tolist() == sampler_run(5, 4)[4]


def test_a_gather_error_is_raised_by_its_step():
    records = Records(fail_on=2)  # The second gather: step 1.
    with DataLoader({"x": records}, num_workers=1, batch_size=4) as loader:
        next(loader)
        with pytest.raises(LookupError, match="gather 2 failed") as raised:
            next(loader)
        frames = [frame.name for frame in traceback.extract_tb(raised.value.__traceback__)]
        assert "__getitems__" in frames


def test_transform_runs_on_each_batch(streams):
    def collate(batch):
        return {"x": batch["data"].reshape(len(batch["label"]), -1),
                "y": batch["label"]}

    with DataLoader(streams, batch_size=4, transform=collate) as loader:
        batch = next(loader)
    assert set(batch) == {"x", "y"} and batch["x"].shape == (4, 12)
    with DataLoader(streams, batch_size=4, transform=None) as loader:
        assert set(next(loader)) == {"data", "label", "token"}  # Identity.


def loader_threads(before):
    return [t for t in threading.enumerate() if t not in before]


def test_close_context_manager_and_del_leave_no_thread_behind(streams):
    before = set(threading.enumerate())
    loader = DataLoader(streams, num_workers=3, batch_size=4,
                        transform=lambda batch: batch)
    assert loader_threads(before) == []  # Nothing runs before next().
    next(loader)
    assert loader_threads(before)  # The transform's threads.
    loader.close()
    assert loader_threads(before) == []
    loader.close()  # Twice is fine.
    with pytest.raises(RuntimeError, match="closed"):
        next(loader)

    with DataLoader(streams, batch_size=4) as loader:
        next(loader)
    assert loader_threads(before) == []

    loader = DataLoader(streams, num_workers=2, batch_size=4)
    next(loader)
    del loader
    gc.collect()
    assert loader_threads(before) == []
    # The stores are the caller's: still open.
    assert len(streams["label"]) == N
    assert streams["label"][[3, 4]].tolist() == [3, 4]


def test_the_loader_is_endless_and_has_no_length(streams):
    with DataLoader(streams, batch_size=30) as loader:
        with pytest.raises(TypeError, match="Eternal loader has no length."):
            len(loader)
        # 30 steps of a cyclic sampler over 100 records: 10 cycles.
        for _ in range(30):
            assert len(next(loader)["label"]) == 30


def test_bad_streams_are_rejected(streams, tmp_path):
    with DenseStore(tmp_path / "short", np.int64, ()) as s:
        s.append(np.arange(3))
    short = DenseStore(tmp_path / "short")
    with pytest.raises(ValueError, match=r"same number of records.*'short': 3"):
        DataLoader({"label": streams["label"], "short": short})
    short.close()
    with pytest.raises(ValueError):
        DataLoader({})
    with pytest.raises(ValueError):
        DataLoader([])
    with pytest.raises(ValueError):
        DataLoader(streams, batch_size=0)
    with pytest.raises(OverflowError):
        DataLoader(streams, seed=-1)


def test_a_store_may_be_compacted_while_a_loader_reads_it(tmp_path):
    # Records 0..999 hold their index and are never deleted; another
    # thread appends past them, deletes what it appended and compacts, over
    # and over, while the loader reads: every batch is still exactly its
    # records, and nothing fails. (The store holds reads off during a
    # delete or compaction; //src:typed_store_concurrency_test is the test
    # that catches a missing exclusion, which this one rarely overlaps.)
    values = np.repeat(np.arange(1000, dtype=np.int64)[:, None], 256, axis=1)
    store = DenseStore(tmp_path / "s", np.int64, (256,))
    store.append(values)
    errors = []

    def churn():
        try:
            for _ in range(30):
                store.append(np.full((100, 256), -1, np.int64))
                # Holes that the last records move into, then the rest.
                store.delete(list(range(1000, 1050)))
                store.delete(list(range(1000, 1050)))
                store.compact()
        except Exception as error:  # Reported by the main thread.
            errors.append(error)

    with DataLoader({"x": store}, num_workers=2, batch_size=64) as loader:
        sampler = Sampler(1000, 64, 2, 42)
        writer = threading.Thread(target=churn)
        writer.start()
        steps = 0
        while writer.is_alive() or steps < 50:
            batch = next(loader)
            expected = sampler.next()
            assert (batch["x"] == expected[:, None]).all()
            steps += 1
        writer.join()
    assert errors == []
    assert len(store) == 1000
    store.close()
