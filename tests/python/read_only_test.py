"""Read-only opens and `verify()` through the Python binding: read-only
handles share a store and refuse every write with a clear error that
changes nothing, never create a store, and `verify()` names every damaged
record of a store (and reports 1.7.7's records as unverified)."""

import os
import pathlib
import shutil

import numpy as np
import pytest

from loaderx.errors import StoreBusyError, StoreNotFoundError, ZrecordError
from loaderx.typed_store import TypedStore
from loaderx.verify_report import VerifyReport
from loaderx.zrecord import DenseStore, RaggedStore

_FIXTURES = pathlib.Path(__file__).parents[1] / "data" / "reference_1_7_7"


def _dense(path, codec="raw"):
    data = np.arange(64, dtype=np.uint8).reshape(4, 16)
    with DenseStore(path, np.uint8, (16,), codec=codec) as store:
        store.append(data)
    return data


def _files(path):
    return {name: (path / name).read_bytes() for name in sorted(os.listdir(path))}


@pytest.mark.parametrize("kind", [DenseStore, RaggedStore, TypedStore])
def test_a_read_only_open_never_creates_a_store(tmp_path, kind):
    with pytest.raises(StoreNotFoundError, match="read-only"):
        if kind is DenseStore:
            DenseStore(tmp_path / "s", np.uint8, (4,), read_only=True)
        elif kind is RaggedStore:
            RaggedStore(tmp_path / "s", np.uint8, read_only=True)
        else:
            TypedStore(tmp_path / "s", "dense", np.uint8, (4,), read_only=True)
    assert not (tmp_path / "s").exists()


def test_writes_through_a_read_only_handle_are_refused_and_change_nothing(
        tmp_path):
    data = _dense(tmp_path / "d")
    before = _files(tmp_path / "d")
    with DenseStore(tmp_path / "d", read_only=True) as store:
        assert store.read_only
        for write in (lambda: store.append(data[:1]),
                      lambda: store.delete(0),
                      store.compact):
            with pytest.raises(RuntimeError, match="read-only"):
                write()
        store.sync()  # Nothing to make durable.
        np.testing.assert_array_equal(store[np.arange(4)], data)
        assert len(store) == 4
    assert _files(tmp_path / "d") == before


def test_read_only_handles_share_and_exclude_a_writer(tmp_path):
    _dense(tmp_path / "d")
    with DenseStore(tmp_path / "d", read_only=True) as first, \
            TypedStore(tmp_path / "d", read_only=True) as second:
        assert first.read_only and second.read_only
        assert second.kind == "dense"
        with pytest.raises(StoreBusyError):
            DenseStore(tmp_path / "d")
    with DenseStore(tmp_path / "d") as writer:
        assert not writer.read_only
        with pytest.raises(StoreBusyError):
            DenseStore(tmp_path / "d", read_only=True)


def test_a_read_only_open_still_checks_the_request(tmp_path):
    _dense(tmp_path / "d")
    with pytest.raises(ValueError):
        DenseStore(tmp_path / "d", np.float32, read_only=True)
    with pytest.raises(TypeError, match="read_only"):
        DenseStore(tmp_path / "d", read_only="yes")  # type: ignore[arg-type]


def test_a_ragged_store_reads_read_only(tmp_path):
    records = [np.full(n, n, dtype=np.int32) for n in (3, 1, 2)]
    with RaggedStore(tmp_path / "r", np.int32, codec="zstd") as store:
        store.append(records)
    with RaggedStore(tmp_path / "r", read_only=True) as store:
        for got, want in zip(store[0, 1, 2], records):
            np.testing.assert_array_equal(got, want)
        with pytest.raises(RuntimeError, match="read-only"):
            store.append(records)
        report = store.verify()
        assert report.ok and report.verified == report.records == 3


@pytest.mark.parametrize("read_only", [False, True])
def test_verify_reports_a_healthy_store(tmp_path, read_only):
    _dense(tmp_path / "d", codec="zstd")
    with DenseStore(tmp_path / "d", read_only=read_only) as store:
        report = store.verify()
    assert isinstance(report, VerifyReport)
    assert report == VerifyReport(records=4, verified=4, unverified=0,
                                  damaged=[], problems=[],
                                  metadata_verified=True)
    assert report.ok


def test_verify_names_every_damaged_record(tmp_path):
    data = _dense(tmp_path / "d", codec="raw")
    chunk = tmp_path / "d" / "0.chunk"
    raw = bytearray(chunk.read_bytes())
    raw[16 + 3] ^= 0xFF  # Record 1.
    raw[48] ^= 0x01  # Record 3.
    chunk.write_bytes(bytes(raw))
    with DenseStore(tmp_path / "d", read_only=True) as store:
        report = store.verify()
        assert not report.ok
        assert report.damaged == [1, 3]
        assert (report.records, report.verified, report.unverified) == (4, 2, 0)
        assert len(report.problems) == 2
        with pytest.raises(ZrecordError) as error:
            store[1]
        assert error.value.code == -7
        np.testing.assert_array_equal(store[0, 2], data[[0, 2]])


def test_verify_reports_1_7_7_records_as_unverified(tmp_path):
    shutil.copytree(_FIXTURES / "dense_zstd", tmp_path / "d")
    with DenseStore(tmp_path / "d", read_only=True) as store:
        report = store.verify()
    assert report.ok
    assert report.records == report.unverified > 0
    assert report.verified == 0
    assert not report.metadata_verified
