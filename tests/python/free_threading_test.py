"""Many Python threads on shared loaderx objects at once, checked byte for
byte: the stress that free-threaded CPython (3.13t, no GIL) puts on the
binding, and the GIL staying off while it runs.

Runs on every interpreter the suites run on. On a free-threaded one it also
asserts that importing and using loaderx leaves the GIL disabled (an
extension that did not declare itself free-threading safe would turn it
back on), and that the loader's `transform` runs on two worker threads at
the same moment (see `test_transform_runs_in_parallel_without_the_gil`).
docs/python-threads.md says what each class promises.
"""

import sys
import sysconfig
import threading

import numpy as np
import pytest

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore, RaggedStore
from loaderx.zsampler import Sampler

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
_RECORDS = 512
_WIDTH = 16  # int32 values per dense record


def _record(i):
    """Dense record i: every value says which record it is."""
    return (np.arange(_WIDTH, dtype=np.int32) * 1_000_003 + i).astype(np.int32)


def _ragged_record(i):
    return np.full(i % 7 + 1, i, dtype=np.int64)


def _check_dense_rows(rows, indices):
    expected = np.stack([_record(int(i)) for i in indices])
    np.testing.assert_array_equal(rows, expected)


def _index_of(row):
    return int(row[0])  # _record(i)[0] == i


def _assert_gil_off():
    if FREE_THREADED:
        assert sys._is_gil_enabled() is False


@pytest.fixture
def stores(tmp_path):
    dense = DenseStore(tmp_path / "dense", np.int32, (_WIDTH,))
    dense.append(np.stack([_record(i) for i in range(_RECORDS)]))
    ragged = RaggedStore(tmp_path / "ragged", np.int64)
    ragged.append([_ragged_record(i) for i in range(_RECORDS)])
    yield dense, ragged
    dense.close()
    ragged.close()


class _Threads:
    """Starts functions on threads that begin together; `join` re-raises the
    first failure of any of them."""

    def __init__(self):
        self._threads = []
        self._errors = []
        self._start = threading.Barrier(1)
        self._targets = []

    def add(self, function, *args):
        self._targets.append((function, args))

    def run(self):
        self._start = threading.Barrier(len(self._targets))

        def body(function, args):
            try:
                self._start.wait()
                function(*args)
            except BaseException as error:  # Reported by run().
                self._errors.append(error)

        self._threads = [threading.Thread(target=body, args=target)
                         for target in self._targets]
        for thread in self._threads:
            thread.start()
        for thread in self._threads:
            thread.join(timeout=600)
            assert not thread.is_alive(), "a stress thread hung"
        if self._errors:
            raise self._errors[0]


def test_the_gil_stays_disabled_after_import():
    if not FREE_THREADED:
        pytest.skip("a GIL build: nothing to disable")
    import loaderx.loaderx_native  # noqa: F401 (the extension itself)
    _assert_gil_off()


def test_many_threads_gather_append_iterate_verify_and_close(tmp_path, stores):
    dense, ragged = stores
    appended = DenseStore(tmp_path / "appended", np.int32, (_WIDTH,))
    writers, writes = 4, 40
    shared_loader = DataLoader({"data": dense}, num_workers=2, batch_size=8,
                               mode=Sampler.Mode.SEQUENTIAL,
                               transform=lambda batch: batch)
    shared_steps = []
    shared_sampler = Sampler(_RECORDS, 16, Sampler.Mode.CYCLIC, seed=5)
    drawn = []
    threads = _Threads()

    def gather(seed):
        rng = np.random.default_rng(seed)
        for _ in range(60):
            indices = rng.integers(0, _RECORDS, size=32)
            _check_dense_rows(dense[indices], indices)
            for i, array in zip(indices, ragged[indices]):
                np.testing.assert_array_equal(array, _ragged_record(int(i)))

    def append(writer):
        for n in range(writes):
            # Two records per call; each names its writer and number.
            first = _record(writer * 10_000 + 2 * n)
            second = _record(writer * 10_000 + 2 * n + 1)
            appended.append(np.stack([first, second]))

    def iterate_own_loader(seed):
        # Every batch's rows are the sampler's indices for that step.
        expected = Sampler(_RECORDS, 16, Sampler.Mode.CYCLIC, seed)
        with DataLoader({"data": dense, "token": ragged}, num_workers=3,
                        batch_size=16, seed=seed,
                        transform=lambda batch: batch) as loader:
            for _ in range(25):
                batch = next(loader)
                indices = expected.next()
                _check_dense_rows(batch["data"], indices)
                for i, array in zip(indices, batch["token"]):
                    np.testing.assert_array_equal(array, _ragged_record(int(i)))

    def iterate_shared_loader():
        for _ in range(15):
            rows = next(shared_loader)["data"]
            first = _index_of(rows[0])
            _check_dense_rows(rows, range(first, first + 8))
            shared_steps.append(first // 8)

    def draw_shared_sampler():
        for _ in range(40):
            drawn.append(shared_sampler.next())

    def verify():
        calls = []
        for _ in range(3):
            report = dense.verify(lambda done, total: calls.append(done))
            assert report.ok
        assert calls

    def open_use_and_close(n):
        # A store closed by one thread while others gather from it: each
        # gather returns the right bytes or raises "closed", nothing else.
        store = DenseStore(tmp_path / f"closing{n}", np.int32, (_WIDTH,))
        store.append(np.stack([_record(i) for i in range(64)]))
        outcomes = []
        errors = []

        def reader():
            rng = np.random.default_rng(n)
            try:
                while True:
                    indices = rng.integers(0, 64, size=8)
                    try:
                        rows = store[indices]
                    except RuntimeError as error:
                        assert "closed" in str(error), error
                        outcomes.append("closed")
                        return
                    _check_dense_rows(rows, indices)
                    outcomes.append("read")
            except BaseException as error:
                errors.append(error)

        readers = [threading.Thread(target=reader) for _ in range(3)]
        for thread in readers:
            thread.start()
        # Let the readers run a little (no sleep: no timing).
        while len(outcomes) < 20 and all(t.is_alive() for t in readers):
            pass
        closers = [threading.Thread(target=store.close) for _ in range(2)]
        for thread in closers:
            thread.start()
        for thread in closers + readers:
            thread.join(timeout=300)
        if errors:
            raise errors[0]
        assert outcomes.count("closed") == 3

    for seed in range(3):
        threads.add(gather, seed)
    for writer in range(writers):
        threads.add(append, writer)
    for seed in range(2):
        threads.add(iterate_own_loader, 100 + seed)
    for _ in range(3):
        threads.add(iterate_shared_loader)
    for _ in range(2):
        threads.add(draw_shared_sampler)
    threads.add(verify)
    for n in range(2):
        threads.add(open_use_and_close, n)
    try:
        threads.run()
    finally:
        shared_loader.close()

    # Appends: every record whole, each exactly once, each call's two
    # records next to each other.
    assert len(appended) == writers * writes * 2
    rows = appended[np.arange(len(appended))]
    names = [_index_of(row) for row in rows]
    assert sorted(names) == sorted(w * 10_000 + k for w in range(writers)
                                   for k in range(writes * 2))
    _check_dense_rows(rows, names)
    for position in range(0, len(names), 2):
        assert names[position] % 2 == 0
        assert names[position + 1] == names[position] + 1
    appended.close()

    # The shared loader handed out steps 0, 1, 2, ... once each.
    assert sorted(shared_steps) == list(range(len(shared_steps)))
    # The shared sampler's draws are its first 80 steps, each once.
    expected = Sampler(_RECORDS, 16, Sampler.Mode.CYCLIC, seed=5)
    want = [tuple(expected.next()) for _ in range(len(drawn))]
    assert sorted(tuple(d) for d in drawn) == sorted(want)
    _assert_gil_off()


def _rendezvous_transform(state, spins):
    """A CPU-bound pure-Python transform that notes whether, while it ran,
    another call of it was running too. It never blocks (no lock wait, no
    sleep, no I/O), so under a GIL that never switches away from it no
    other Python code can run meanwhile."""

    def transform(batch):
        with state["lock"]:  # Uncontended: never waits long.
            state["running"] += 1
        saw_peer = False
        total = 0
        for n in range(spins):
            total += n * n % 7  # Work, in pure Python.
            if state["running"] > 1:
                saw_peer = True
                break
        with state["lock"]:
            state["running"] -= 1
            state["overlapped"].append(saw_peer)
        return batch

    return transform


@pytest.mark.parametrize("workers", [4])
def test_transform_runs_in_parallel_without_the_gil(stores, workers):
    """Free-threaded: two transforms run at the same moment (one sees the
    other running while it computes). With a GIL that is not released
    while Python runs (a switch interval far longer than the test), no
    transform can see another: the same check fails there, so it does
    tell parallel execution from interleaving."""
    dense, _ = stores
    state = {"lock": threading.Lock(), "running": 0, "overlapped": []}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)  # No effect without a GIL.
    try:
        spins = 20_000_000 if FREE_THREADED else 200_000
        with DataLoader({"data": dense}, num_workers=workers, batch_size=8,
                        transform=_rendezvous_transform(state, spins)) as loader:
            for _ in range(2 * workers):
                next(loader)
    finally:
        sys.setswitchinterval(interval)
    assert len(state["overlapped"]) >= 2 * workers
    if FREE_THREADED:
        assert any(state["overlapped"]), "no two transforms ever overlapped"
        _assert_gil_off()
    else:
        assert not any(state["overlapped"])
