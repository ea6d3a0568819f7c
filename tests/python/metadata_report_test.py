"""What `verify()` says about a store's metadata through the Python
binding: records that vanished past the length (meta.zr's length made
smaller, as loaderx 1.7.7's delete or damage leaves it) are a metadata
problem, `ok` is False, until `accept_metadata_problems()`; and what
`estimate_compaction()` says a compaction needs."""

import struct

import numpy as np
import pytest

from loaderx.zrecord import DenseStore, RaggedStore

_LENGTH_OFFSET = 14  # meta.zr: u64 physical record count (store_format.h)


def _set_length(path, length):
    meta = path / "meta.zr"
    data = bytearray(meta.read_bytes())
    data[_LENGTH_OFFSET:_LENGTH_OFFSET + 8] = struct.pack("<Q", length)
    meta.write_bytes(bytes(data))


def test_a_shrunken_store_reports_the_removed_records_until_accepted(tmp_path):
    path = tmp_path / "s"
    with DenseStore(path, np.uint8, (8,), codec="raw") as store:
        store.append(np.arange(80, dtype=np.uint8).reshape(10, 8))
    _set_length(path, 6)
    with DenseStore(path, read_only=True) as store:
        assert len(store) == 6
        report = store.verify()
        assert report.damaged == []
        assert report.removed_records == 4
        assert not report.ok
        assert len(report.metadata_problems) == 1
        assert ("4 records past the length were removed by another writer "
                "or by damage to meta.zr") in report.metadata_problems[0]
        with pytest.raises(Exception, match="read-only"):
            store.accept_metadata_problems()
    with DenseStore(path) as store:
        assert not store.verify().ok
        store.accept_metadata_problems()
        assert store.verify().ok
    with DenseStore(path, read_only=True) as store:
        report = store.verify()
        assert report.ok
        assert report.removed_records == 0
        assert report.metadata_problems == []
        np.testing.assert_array_equal(
            store[:], np.arange(48, dtype=np.uint8).reshape(6, 8))


def test_a_shrunken_ragged_store_is_reported_too(tmp_path):
    path = tmp_path / "r"
    with RaggedStore(path, np.uint8, codec="raw") as store:
        for n in range(1, 6):
            store.append(np.arange(n, dtype=np.uint8))
    _set_length(path, 6)  # Physical records: 3 payload/shape pairs.
    with RaggedStore(path, read_only=True) as store:
        assert len(store) == 3
        report = store.verify()
        assert report.removed_records > 0
        assert not report.ok


def test_estimate_compaction_states_what_compaction_needs(tmp_path):
    path = tmp_path / "c"
    with RaggedStore(path, np.uint8, codec="raw") as store:
        for n in range(40):
            store.append(np.full(16 if n < 20 else 400, n, dtype=np.uint8))
        store.delete(list(range(0, 20, 2)))
        estimate = store.estimate_compaction()
        assert set(estimate) == {"moves", "batches", "reclaimed_bytes",
                                 "needed_bytes", "available_bytes"}
        assert estimate["moves"] > 0
        assert estimate["reclaimed_bytes"] > 0
        assert estimate["needed_bytes"] >= 0
        # A real filesystem says how much is free.
        assert estimate["available_bytes"] is not None
        before = len(store)
        store.compact()
        after = store.estimate_compaction()
        assert after["moves"] == 0 and after["needed_bytes"] == 0
        assert len(store) == before
