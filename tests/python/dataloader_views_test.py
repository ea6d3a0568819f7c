"""loaderx.dataloader over the native loader: a batch's arrays are views of
the native batch buffers (no copy), stay valid while referenced however far
the loader moves, and the ring reuses a buffer only once its arrays are
gone; thousands of steps over dense and ragged streams stay aligned and
resume exactly after a seek; close while a transform runs or racing a
next(); a damaged record's error at its own step."""

import gc
import pathlib
import threading

import numpy as np
import pytest

from loaderx import loaderx_native
from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore, RaggedStore, ZrecordError
from loaderx.zsampler import Sampler

N = 1000


def token_count(i):
    return i % 7 + 1


@pytest.fixture
def streams(tmp_path):
    """N records: data row i is (4,) float32 of i, label i is i, tokens i
    has token_count(i) int16 elements all i % 30000."""
    data = np.repeat(np.arange(N, dtype=np.float32)[:, None], 4, axis=1)
    with DenseStore(tmp_path / "data", np.float32, (4,), codec="raw") as s:
        s.append(data)
    with DenseStore(tmp_path / "label", np.int64, (), codec="zstd") as s:
        s.append(np.arange(N, dtype=np.int64))
    with RaggedStore(tmp_path / "tokens", np.int16, codec="zstd") as s:
        s.append([np.full(token_count(i), i % 30000, np.int16)
                  for i in range(N)])
    opened = {"data": DenseStore(tmp_path / "data"),
              "label": DenseStore(tmp_path / "label"),
              "tokens": RaggedStore(tmp_path / "tokens")}
    yield opened
    for store in opened.values():
        store.close()


def whole_buffer(array):
    """The bytes of the batch buffer `array` is a view of."""
    assert isinstance(array.base, loaderx_native.BatchBuffer)
    return np.frombuffer(array.base, np.uint8)


def check_aligned(batch):
    labels = batch["label"]
    np.testing.assert_array_equal(batch["data"][:, 0], labels)
    assert len(batch["tokens"]) == len(labels)
    for label, tokens in zip(labels.tolist(), batch["tokens"]):
        assert tokens.shape == (token_count(label),)
        assert (tokens == label % 30000).all()


def test_arrays_are_views_of_the_native_batch_buffers(streams):
    with DataLoader(streams, batch_size=16) as loader:
        batch = next(loader)
        for name in ("data", "label"):
            array = batch[name]
            buffer = whole_buffer(array)
            assert np.shares_memory(array, buffer)
            assert array.ctypes.data == buffer.ctypes.data  # From its start,
            assert array.ctypes.data % 4096 == 0           # page-aligned.
            assert array.nbytes == buffer.nbytes == array.base.nbytes
            assert array.flags.writeable and array.flags.c_contiguous
        tokens = batch["tokens"]
        base = tokens[0].base
        start = whole_buffer(tokens[0]).ctypes.data
        for record in tokens:  # One buffer for the whole stream's batch.
            assert record.base is base
            assert (record.ctypes.data - start) % record.itemsize == 0
        # Writing through a view writes the batch buffer itself.
        batch["data"][3] = -1.0
        assert whole_buffer(batch["data"]).view(np.float32)[12:16].tolist() == [-1.0] * 4
        # ... and not the store.
        label = int(batch["label"][3])
        assert streams["data"][label].tolist() == [float(label)] * 4


def test_transformed_batches_are_views_too(streams):
    def keep(batch):
        assert isinstance(batch["data"].base, loaderx_native.BatchBuffer)
        return batch

    with DataLoader(streams, num_workers=2, batch_size=8,
                    transform=keep) as loader:
        for _ in range(10):
            batch = next(loader)
            check_aligned(batch)
            assert isinstance(batch["tokens"][0].base, loaderx_native.BatchBuffer)


def test_held_arrays_survive_the_loader_advancing(streams):
    with DataLoader(streams, batch_size=32, prefetch_size=2) as loader:
        held = [next(loader) for _ in range(3)]
        copies = [{"data": b["data"].copy(), "label": b["label"].copy(),
                   "tokens": [t.copy() for t in b["tokens"]]} for b in held]
        addresses = {b["data"].ctypes.data for b in held}
        for _ in range(300):
            batch = next(loader)
            # The ring never hands out a buffer someone still holds.
            assert batch["data"].ctypes.data not in addresses
        del batch
        for kept, copy in zip(held, copies):
            np.testing.assert_array_equal(kept["data"], copy["data"])
            np.testing.assert_array_equal(kept["label"], copy["label"])
            for got, want in zip(kept["tokens"], copy["tokens"]):
                np.testing.assert_array_equal(got, want)
            check_aligned(kept)
        # Only a ragged record kept: its batch stays valid through it alone.
        record = held[0]["tokens"][5]
        want = copies[0]["tokens"][5]
        del held, kept
        gc.collect()
        for _ in range(50):
            next(loader)
        np.testing.assert_array_equal(record, want)
    # After close too.
    np.testing.assert_array_equal(record, want)


def test_the_ring_reuses_buffers_once_their_arrays_are_gone(streams):
    with DataLoader(streams, batch_size=32, prefetch_size=2) as loader:
        for _ in range(20):
            next(loader)  # Warm: dropped at once.
        warm = loader._native.stats()
        for _ in range(200):
            check_aligned(next(loader))
        steady = loader._native.stats()
        assert steady.batches_created == warm.batches_created
        assert steady.buffer_allocations == warm.buffer_allocations
        # Holding batches makes the ring allocate others instead.
        held = [next(loader) for _ in range(10)]
        assert loader._native.stats().batches_created >= (
            steady.batches_created + 10 - 3)
        for batch in held:
            check_aligned(batch)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_thousands_of_steps_stay_aligned_and_resume_exactly(streams, mode):
    steps, batch_size, seed = 2000, 8, 5
    sampler = Sampler(N, batch_size, mode, seed)
    expected = [sampler.next().tolist() for _ in range(steps)]
    labels = []
    with DataLoader(streams, batch_size=batch_size, mode=mode,
                    seed=seed) as loader:
        for _ in range(steps):
            batch = next(loader)
            check_aligned(batch)
            labels.append(batch["label"].tolist())
        assert loader.step == steps
    assert labels == expected
    with DataLoader(streams, batch_size=batch_size, mode=mode, seed=seed,
                    transform=lambda batch: batch) as resumed:
        for start, count in ((1500, 300), (17, 40), (1999, 1)):
            resumed.seek(start)
            assert resumed.step == start
            for step in range(start, start + count):
                batch = next(resumed)
                check_aligned(batch)
                assert batch["label"].tolist() == expected[step]


def test_close_while_a_transform_runs(streams):
    started, finish = threading.Event(), threading.Event()
    finished = []

    def slow(batch):
        started.set()
        finish.wait(30)
        finished.append(True)
        return batch

    before = set(threading.enumerate())
    loader = DataLoader(streams, num_workers=2, batch_size=4, transform=slow)
    results = []
    consumer = threading.Thread(target=lambda: results.append(next(loader)))
    consumer.start()
    assert started.wait(30)
    timer = threading.Timer(0.2, finish.set)
    timer.start()
    loader.close()  # Waits for the running transforms.
    assert finished
    consumer.join(30)
    assert not consumer.is_alive()
    timer.join()
    assert [t for t in threading.enumerate() if t not in before] == []
    assert results and results[0]["label"].shape == (4,)  # Still valid.
    check_aligned(results[0])
    with pytest.raises(RuntimeError, match="closed"):
        next(loader)
    with pytest.raises(RuntimeError, match="closed"):
        loader.seek(0)


def test_close_racing_next_gives_a_batch_or_closed(streams):
    # A close may land anywhere inside a concurrent next(): before it takes
    # its step, between taking it and refilling the prefetch queue, or while
    # it waits. The next() returns its batch whole or raises "closed";
    # nothing else (a refill submitted to a shut-down pool used to raise
    # "cannot schedule new futures after shutdown").
    for attempt in range(60):
        loader = DataLoader(streams, num_workers=2, batch_size=4,
                            transform=lambda batch: batch)
        errors, results = [], []

        def consume():
            try:
                while True:
                    results.append(next(loader))
            except RuntimeError as error:
                errors.append(error)

        consumer = threading.Thread(target=consume)
        consumer.start()
        threading.Event().wait(0.0005 * (attempt % 10))
        loader.close()
        consumer.join(30)
        assert not consumer.is_alive()
        assert len(errors) == 1 and "closed" in str(errors[0]), errors
        for batch in results:
            check_aligned(batch)


def damage_record(store_path, index):
    """Overwrites record `index`'s zstd frame magic in its chunk."""
    store_path = pathlib.Path(store_path)
    entry = np.fromfile(store_path / "0.loc", dtype="<u4").reshape(-1, 4)[index]
    offset, chunk = int(entry[0]), int(entry[3])
    with open(store_path / f"{chunk}.chunk", "r+b") as f:
        f.seek(offset)
        f.write(b"\0\0\0\0")


@pytest.mark.parametrize("transform", [None, lambda batch: batch])
def test_a_damaged_record_fails_its_own_step_only(tmp_path, transform):
    with DenseStore(tmp_path / "x", np.int64, (), codec="zstd") as s:
        s.append(np.arange(100, dtype=np.int64))
    damage_record(tmp_path / "x", 35)
    with DenseStore(tmp_path / "x") as store, \
            DataLoader({"x": store}, batch_size=10, mode=0,
                       transform=transform) as loader:
        for step in range(3):
            assert next(loader)["x"].tolist() == list(range(10 * step, 10 * step + 10))
        with pytest.raises(ZrecordError, match="step 3.*record 35") as raised:
            next(loader)
        assert raised.value.code == -7  # The reference's corrupt record.
        assert loader.step == 4
        assert next(loader)["x"].tolist() == list(range(40, 50))
        loader.seek(3)  # A lasting error fails the step each time.
        with pytest.raises(ZrecordError, match="step 3"):
            next(loader)


def test_a_store_closed_under_a_loader_stays_open_until_the_loader_closes(
        streams, tmp_path):
    labels = streams["label"]
    loader = DataLoader({"label": labels}, batch_size=4, mode=0)
    labels.close()
    assert next(loader)["label"].tolist() == [0, 1, 2, 3]  # Still readable.
    with pytest.raises(BlockingIOError):  # Its lock is the loader's now.
        DenseStore(tmp_path / "label")
    loader.close()
    with DenseStore(tmp_path / "label") as reopened:
        assert len(reopened) == N
