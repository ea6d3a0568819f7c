"""`verify(progress)` through the Python binding: the engine's progress
reports reach a Python callable (from the pool's threads too, with the GIL
taken for each), `done` grows to `total` (the records the report counts),
an exception the callable raises stops its calls and comes out of
`verify()` once the verification has finished, and the store stays usable;
`verify()` without progress is unchanged."""

import threading
import time

import numpy as np
import pytest

import loaderx
from loaderx.typed_store import TypedStore
from loaderx.verify_report import VerifyReport
from loaderx.zrecord import DenseStore, RaggedStore

# Enough records that every shard reports more than once (the engine
# reports every 4,096 records per shard and at each shard's end).
_RECORDS = 20_000


class _Calls:
    """Records every (done, total) and the thread it came from."""

    def __init__(self):
        self.calls = []
        self.threads = set()
        self.overlapping = False
        self._inside = threading.Lock()

    def __call__(self, done, total):
        if not self._inside.acquire(blocking=False):
            self.overlapping = True  # Two calls at once.
            return
        try:
            self.calls.append((done, total))
            self.threads.add(threading.get_ident())
        finally:
            self._inside.release()


def _make(path, kind, codec="raw"):
    data = np.arange(_RECORDS * 2, dtype=np.uint16).reshape(_RECORDS, 2)
    if kind == "dense":
        with DenseStore(path, np.uint16, (2,), codec=codec) as store:
            store.append(data)
    else:
        with RaggedStore(path, np.uint16, codec=codec) as store:
            store.append(list(data))
    return data


def _check_calls(calls, report):
    assert len(calls.calls) >= 2, calls.calls
    assert not calls.overlapping
    dones = [done for done, _ in calls.calls]
    assert dones == sorted(dones)
    assert {total for _, total in calls.calls} == {report.records}
    assert calls.calls[-1] == (report.records, report.records)


@pytest.mark.parametrize("kind", ["dense", "ragged"])
@pytest.mark.parametrize("codec", ["raw", "zstd"])
def test_progress_grows_to_the_records_examined(tmp_path, kind, codec):
    _make(tmp_path / "s", kind, codec)
    calls = _Calls()
    with TypedStore(tmp_path / "s", read_only=True) as store:
        report = store.verify(calls)
    assert report.ok and report.records == report.verified == _RECORDS
    _check_calls(calls, report)


def test_progress_is_a_keyword_too(tmp_path):
    _make(tmp_path / "s", "dense")
    calls = _Calls()
    with DenseStore(tmp_path / "s") as store:
        report = store.verify(progress=calls)
    _check_calls(calls, report)


def test_progress_counts_damaged_records_too(tmp_path):
    data = np.arange(64, dtype=np.uint8).reshape(4, 16)
    with DenseStore(tmp_path / "d", np.uint8, (16,), codec="raw") as store:
        store.append(data)
    chunk = tmp_path / "d" / "0.chunk"
    raw = bytearray(chunk.read_bytes())
    raw[16 + 3] ^= 0xFF  # Record 1.
    chunk.write_bytes(bytes(raw))
    calls = []
    with DenseStore(tmp_path / "d", read_only=True) as store:
        report = store.verify(lambda done, total: calls.append((done, total)))
    assert report.damaged == [1]
    assert calls and calls[-1] == (4, 4)


def test_an_empty_store_reports_once(tmp_path):
    calls = []
    with DenseStore(tmp_path / "e", np.float32, (3,)) as store:
        report = store.verify(lambda done, total: calls.append((done, total)))
    assert report.records == 0
    assert calls == [(0, 0)]


class _Stop(BaseException):
    """Not an Exception: what KeyboardInterrupt-like errors look like."""


@pytest.mark.parametrize("error", [ValueError("stop here"), _Stop()])
def test_an_exception_from_progress_comes_out_of_verify(tmp_path, error):
    data = _make(tmp_path / "s", "ragged")
    calls = []

    def progress(done, total):
        calls.append((done, total))
        raise error

    with RaggedStore(tmp_path / "s") as store:
        with pytest.raises(type(error)) as raised:
            store.verify(progress)
        assert raised.value is error
        assert len(calls) == 1  # Never called again after it raised.
        # The store is untouched and fully usable.
        assert len(store) == _RECORDS
        np.testing.assert_array_equal(store[_RECORDS - 1], data[-1])
        store.append([np.zeros(2, np.uint16)])
        again = _Calls()
        report = store.verify(again)
        assert report.ok and report.records == _RECORDS + 1
        _check_calls(again, report)


def test_verify_without_progress_is_unchanged(tmp_path):
    _make(tmp_path / "s", "dense")
    with DenseStore(tmp_path / "s", read_only=True) as store:
        for report in (store.verify(), store.verify(None),
                       store.verify(progress=None)):
            assert report == VerifyReport(records=_RECORDS, verified=_RECORDS,
                                          unverified=0, damaged=[],
                                          problems=[], metadata_verified=True)


def test_a_progress_that_is_not_callable_is_a_type_error(tmp_path):
    _make(tmp_path / "s", "dense")
    with DenseStore(tmp_path / "s") as store:
        with pytest.raises(TypeError, match="callable"):
            store.verify(5)  # type: ignore[arg-type]
        assert store.verify().ok


def test_pool_threads_report_with_the_gil_taken(tmp_path):
    # With workers in the pool, reports come from them too: the native
    # call must run without the GIL and each report must take it. The
    # caller's first report waits a moment, so a worker has claimed its
    # shard by then; a few attempts make a scheduling fluke harmless.
    saved = loaderx.num_threads()
    loaderx.set_num_threads(3)
    try:
        _make(tmp_path / "s", "dense")
        caller = threading.get_ident()
        from_workers = False
        for _ in range(20):
            calls = _Calls()
            waited = []

            def progress(done, total):
                if threading.get_ident() == caller and not waited:
                    waited.append(True)
                    time.sleep(0.05)
                calls(done, total)

            with DenseStore(tmp_path / "s", read_only=True) as store:
                report = store.verify(progress)
            _check_calls(calls, report)
            if calls.threads - {caller}:
                from_workers = True
                break
        assert from_workers, "every report came from the calling thread"
    finally:
        loaderx.set_num_threads(saved)

