"""loaderx.zrecord through the real native build, following the reference
design's examples: dense and ragged stores, persistence of the identity,
indexing forms, maintenance, and bad input refused without changes."""

import subprocess
import sys
import textwrap
import os

import numpy as np
import pytest

from loaderx.zrecord import DenseStore, RaggedStore, ZrecordError


@pytest.fixture(params=["raw", "zstd"])
def codec(request):
    return request.param


def test_reference_dense_example(tmp_path, codec):
    path = tmp_path / "data"
    data = np.arange(64, dtype=np.float32).reshape(8, 2, 4)
    with DenseStore(path, data.dtype, data.shape[1:], codec=codec) as ds:
        assert ds.append(data) == 0
    ds = DenseStore(path)
    assert ds.dtype == np.float32 and ds.item_shape == (2, 4)
    assert ds.codec == codec
    assert len(ds) == 8
    batch = ds[0, 5, 2]
    assert batch.shape == (3, 2, 4) and batch.dtype == np.float32
    np.testing.assert_array_equal(batch, data[[0, 5, 2]])
    np.testing.assert_array_equal(ds[-1], data[7])          # scalar: one record
    np.testing.assert_array_equal(ds[2:5], data[2:5])
    np.testing.assert_array_equal(ds[[7, 0]], data[[7, 0]])
    np.testing.assert_array_equal(ds[np.array([1, 1])], data[[1, 1]])
    mask = np.zeros(8, dtype=bool)
    mask[[3, 6]] = True
    np.testing.assert_array_equal(ds[mask], data[mask])
    assert ds[5:5].shape == (0, 2, 4)
    ds.close()


def test_labels_are_scalar_records(tmp_path):
    labels = np.array([3, 1, 4, 1, 5], dtype=np.int64)
    with DenseStore(tmp_path / "label", labels.dtype, labels.shape[1:]) as ds:
        ds.append(labels)
        assert ds.item_shape == ()
        assert ds[2] == 4
        np.testing.assert_array_equal(ds[:], labels)


def test_appends_are_explicit_batches(tmp_path):
    images = np.random.default_rng(0).integers(0, 255, (10, 28, 28), dtype=np.uint8)
    ds = DenseStore(tmp_path / "mnist" / "x", dtype=np.uint8, item_shape=(28, 28))
    assert ds.append(images[:4]) == 0
    assert ds.append(images[4:5]) == 4          # one sample is batch size 1
    assert ds.append(images[5:]) == 5
    np.testing.assert_array_equal(ds[:], images)
    ds.close()


def test_wrong_dtype_or_shape_is_rejected_and_changes_nothing(tmp_path):
    ds = DenseStore(tmp_path / "x", np.float32, (2,))
    ds.append(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="dtype"):
        ds.append(np.zeros((1, 2), np.float64))
    with pytest.raises(ValueError, match="shape"):
        ds.append(np.zeros((1, 3), np.float32))
    with pytest.raises(ValueError, match="at least one"):
        ds.append(np.zeros((0, 2), np.float32))
    assert len(ds) == 3
    with pytest.raises(IndexError):
        ds[3]
    with pytest.raises(IndexError):
        ds[[0, -4]]
    with pytest.raises(IndexError):
        ds[np.ones(2, dtype=bool)]
    with pytest.raises(TypeError):
        ds["a"]
    ds.close()


def test_identity_and_codec_are_validated_at_creation(tmp_path):
    with pytest.raises(ValueError):
        DenseStore(tmp_path / "a", np.float32, (3, 0))
    with pytest.raises(KeyError, match="lz4"):                # as 1.7.7
        DenseStore(tmp_path / "b", np.float32, (3,), codec="lz4")
    with pytest.raises(ValueError, match="dict_bytes"):
        DenseStore(tmp_path / "c", np.float32, (3,), codec="zstd_dict")
    with pytest.raises(ValueError, match="object"):
        RaggedStore(tmp_path / "d", object)
    assert not (tmp_path / "a").exists()
    assert not (tmp_path / "b").exists()
    assert not (tmp_path / "d").exists()


def test_existing_missing_and_foreign_stores(tmp_path):
    with DenseStore(tmp_path / "s", np.int32, ()) as ds:
        ds.append(np.arange(3, dtype=np.int32))
    with DenseStore(tmp_path / "s", np.int32, ()) as ds:     # opens it
        assert ds.append(np.arange(3, 5, dtype=np.int32)) == 3
    with pytest.raises(FileNotFoundError):
        DenseStore(tmp_path / "nothing")
    with pytest.raises(ValueError, match="'dense' store, not 'ragged'"):
        RaggedStore(tmp_path / "s")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "meta.zr").write_bytes(b"x" * 32)
    with pytest.raises(ZrecordError, match="did not finish") as bad:
        DenseStore(tmp_path / "foreign")
    assert bad.value.code == -8
    np.testing.assert_array_equal(DenseStore(tmp_path / "s")[:], range(5))


def test_a_store_held_elsewhere_is_busy(tmp_path):
    holder = DenseStore(tmp_path / "s", np.int32, ())
    with pytest.raises(BlockingIOError):
        DenseStore(tmp_path / "s")
    child = textwrap.dedent(f"""
        from loaderx.zrecord import DenseStore
        try:
            DenseStore({str(tmp_path / "s")!r})
        except BlockingIOError:
            raise SystemExit(0)
        raise SystemExit(1)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    assert subprocess.run([sys.executable, "-c", child], env=env).returncode == 0
    holder.close()
    DenseStore(tmp_path / "s").close()


def test_reference_ragged_example(tmp_path, codec):
    seqs = [np.arange(n, dtype=np.int32) for n in (3, 1, 4, 1, 5)]
    with RaggedStore(tmp_path / "tokens", np.int32, codec=codec) as rs:
        assert rs.append(iter(seqs)) == 0        # any iterable
    rs = RaggedStore(tmp_path / "tokens")
    records = rs[0, 2, 4]
    assert isinstance(records, list) and len(records) == 3
    for got, want in zip(records, [seqs[0], seqs[2], seqs[4]]):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)
    lengths = np.array([len(r) for r in records])
    padded = np.zeros((len(records), lengths.max()), dtype=records[0].dtype)
    for i, r in enumerate(records):
        padded[i, :len(r)] = r
    assert padded.shape == (3, 5)
    rs.close()


def test_ragged_keeps_arbitrary_shapes_and_scalars(tmp_path):
    images = [np.full((3, h, w), h, dtype=np.uint8) for h, w in ((64, 80), (2, 3))]
    scalar = np.array(7, dtype=np.uint8)
    with RaggedStore(tmp_path / "img", np.uint8) as rs:
        rs.append(images + [scalar])
        got = rs[:]
    assert [g.shape for g in got] == [(3, 64, 80), (3, 2, 3), ()]
    np.testing.assert_array_equal(got[1], images[1])
    assert got[2] == 7


def test_ragged_rejects_empty_and_mistyped_records(tmp_path):
    rs = RaggedStore(tmp_path / "t", np.int32)
    rs.append([np.arange(2, dtype=np.int32)])
    with pytest.raises(ValueError, match="zero-byte"):
        rs.append([np.arange(2, dtype=np.int32), np.zeros(0, np.int32)])
    with pytest.raises(ValueError, match="dtype"):
        rs.append([np.arange(2, dtype=np.int64)])
    with pytest.raises(ValueError, match="at least one"):
        rs.append([])
    assert len(rs) == 1
    rs.close()


def test_delete_stats_and_compact(tmp_path, codec):
    data = np.random.default_rng(1).random((20, 16)).astype(np.float32)
    ds = DenseStore(tmp_path / "x", data.dtype, (16,), codec=codec)
    ds.append(data)
    survivors = list(range(20))
    ds.delete(np.arange(0, 20, 2))            # swap-last, descending
    for i in sorted(range(0, 20, 2), reverse=True):
        survivors[i] = survivors[-1]
        survivors.pop()
    assert len(ds) == 10
    stats = ds.stats()
    assert stats["records"] == 10 and stats["reclaimable"] > 0
    ds.compact()
    after = ds.stats()
    assert after["reclaimable"] == 0
    assert after["live_bytes"] == stats["live_bytes"]
    np.testing.assert_array_equal(ds[:], data[survivors])
    ds.close()
    np.testing.assert_array_equal(DenseStore(tmp_path / "x")[:], data[survivors])


def test_close_without_sync_still_releases(tmp_path):
    ds = DenseStore(tmp_path / "x", np.int8, ())
    ds.append(np.arange(4, dtype=np.int8))
    ds.close(sync=False)
    reopened = DenseStore(tmp_path / "x")   # the lock is free
    np.testing.assert_array_equal(reopened[:], np.arange(4))
    reopened.close()


def test_closed_store_refuses_calls(tmp_path):
    ds = DenseStore(tmp_path / "x", np.int8, ())
    ds.close()
    ds.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        len(ds)
    with pytest.raises(RuntimeError, match="closed"):
        ds[0]


def test_the_compression_level_reaches_the_codec_and_is_not_persisted(tmp_path):
    data = np.tile(np.arange(256, dtype=np.uint8), (8, 4))
    for level in (1, 19):
        with DenseStore(tmp_path / f"l{level}", np.uint8, (1024,),
                        codec="zstd", level=level) as ds:
            ds.append(data)
        with DenseStore(tmp_path / f"l{level}") as ds:   # no level stored
            np.testing.assert_array_equal(ds[:], data)
    with RaggedStore(tmp_path / "r", np.uint8, codec="zstd", level=5) as rs:
        rs.append([data[0]])
    # zstd's levels end at 22: the codec refuses, nothing is created.
    with pytest.raises(ValueError, match="level"):
        DenseStore(tmp_path / "bad", np.uint8, (4,), codec="zstd", level=99)
    assert not (tmp_path / "bad").exists()
    with pytest.raises(ValueError, match="level"):
        DenseStore(tmp_path / "l1", level=99)   # and on open


def test_the_shared_thread_pool_is_sized_from_python(tmp_path):
    import loaderx
    before = loaderx.num_threads()
    assert before >= 1
    try:
        loaderx.set_num_threads(1)
        assert loaderx.num_threads() == 1
        data = np.arange(4096, dtype=np.int32).reshape(64, 64)
        with DenseStore(tmp_path / "x", np.int32, (64,)) as ds:  # one thread
            ds.append(data)
            np.testing.assert_array_equal(ds[::-1], data[::-1])
        loaderx.set_num_threads(3)
        assert loaderx.num_threads() == 3
        with pytest.raises(ValueError, match="at least 1"):
            loaderx.set_num_threads(0)
        assert loaderx.num_threads() == 3
    finally:
        loaderx.set_num_threads(before)
