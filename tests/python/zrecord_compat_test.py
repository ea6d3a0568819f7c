"""loaderx.zrecord as loaderx 1.7.7 code uses it: open-or-create with
validation, the reference's errors and codes (each also the idiomatic
exception), every index form, every numpy dtype but object, and the
deliberate choices where 1.7.7's behaviour is unclear (README:
"Compatibility with loaderx 1.7.7")."""

import pickle

import numpy as np
import pytest

import loaderx
from loaderx import errors, zrecord
from loaderx.zrecord import DICT_TIERS, DenseStore, RaggedStore, ZrecordError


def test_module_surface_is_the_references():
    assert set(zrecord.__all__) == {"DenseStore", "RaggedStore", "ZrecordError",
                                    "DICT_TIERS"}
    assert DICT_TIERS == {"fast": {"size": 32 << 10, "samples": 4 << 20},
                          "balanced": {"size": 128 << 10, "samples": 16 << 20},
                          "max": {"size": 1 << 20, "samples": 64 << 20}}
    major, minor, _ = (int(p) for p in loaderx.__version__.split("."))
    assert (major, minor) > (1, 7)
    assert issubclass(ZrecordError, RuntimeError)
    assert str(ZrecordError(-3)) == "index out of range"
    assert ZrecordError(-3).code == -3
    assert str(ZrecordError(-99)) == "unknown zrecord error -99"
    error = errors.IndexOutOfRangeError(-3, "index 9")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and again.code == -3
    assert str(again) == "index out of range: index 9"


def test_open_or_create_validates_against_an_existing_store(tmp_path):
    path = tmp_path / "d"
    with DenseStore(path, np.float32, (2, 3), codec="raw") as ds:
        ds.append(np.zeros((2, 2, 3), np.float32))
    # The reference appends to a store by opening it with its dtype.
    with DenseStore(path, np.float32, (2, 3), codec="raw") as ds:
        assert ds.append(np.ones((1, 2, 3), np.float32)) == 2
        assert isinstance(ds.path, type(tmp_path)) and ds.path == path
    with DenseStore(str(path), codec="raw") as ds:
        assert len(ds) == 3 and ds.codec == "raw"
    for kwargs, message in [({"dtype": np.float64}, "holds dtype"),
                            ({"item_shape": (3, 2)}, "holds item_shape"),
                            ({"codec": "zstd"}, "holds codec"),
                            ({"dict_bytes": b"x" * 100}, "only accepted")]:
        with pytest.raises(ValueError, match=message):
            DenseStore(path, **kwargs)
    # A failed validation releases the store.
    DenseStore(path).close()


def test_missing_stores_need_a_dtype(tmp_path):
    with pytest.raises(FileNotFoundError):
        DenseStore(tmp_path / "none")
    with pytest.raises(FileNotFoundError):
        DenseStore(tmp_path / "none", np.int32)       # dense needs item_shape
    assert not (tmp_path / "none").exists()
    with pytest.raises(ValueError, match="requires dict_bytes"):
        RaggedStore(tmp_path / "r", np.uint8, codec="zstd_dict")
    with pytest.raises(ValueError, match="requires codec='zstd_dict'"):
        RaggedStore(tmp_path / "r", np.uint8, dict_bytes=b"d" * 64)
    with pytest.raises(ValueError, match="non-negative|negative"):
        DenseStore(tmp_path / "n", np.uint8, (2, -1))
    with pytest.raises(ValueError, match="larger than 2\\^31") as big:
        DenseStore(tmp_path / "n", np.float64, (1 << 20, 1 << 10))
    assert isinstance(big.value, ZrecordError) and big.value.code == -4
    with pytest.raises(KeyError):
        RaggedStore(tmp_path / "r", np.uint8, codec="brotli")
    # A subarray dtype is refused: numpy arrays never carry one.
    with pytest.raises(ValueError, match="subarray"):
        DenseStore(tmp_path / "s", np.dtype(("<i4", (2,))), (1,))


def test_errors_carry_codes_and_idiomatic_types(tmp_path):
    holder = DenseStore(tmp_path / "d", np.int16, (2,), codec="raw")
    holder.append(np.zeros((4, 2), np.int16))
    with pytest.raises(BlockingIOError) as busy:
        DenseStore(tmp_path / "d")
    assert isinstance(busy.value, ZrecordError) and busy.value.code == -14
    for key in (4, -5, [0, 9], np.array([2**64 - 3], np.uint64)):
        with pytest.raises(IndexError) as out:
            holder[key]
        assert isinstance(out.value, ZrecordError) and out.value.code == -3
    with pytest.raises(ZrecordError) as deleted:
        holder.delete(np.array([2**64 - 3], np.uint64))
    assert deleted.value.code == -3 and len(holder) == 4
    with pytest.raises(ValueError) as kind:
        RaggedStore(tmp_path / "d")
    assert kind.value.code == -13
    holder.close()
    (tmp_path / "busy_dir").mkdir()
    (tmp_path / "busy_dir" / "photo.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(FileExistsError) as exists:
        DenseStore(tmp_path / "busy_dir", np.uint8, (1,))
    assert exists.value.code == -12
    assert sorted(p.name for p in (tmp_path / "busy_dir").iterdir()) == [
        "photo.jpg"]


def _rewrite_identity(path, edit):
    """Replaces store.zr's msgpack identity with `edit(identity)`, fixing
    the header's identity length (offset 16), as 1.7.7's suite does."""
    header = (path / "store.zr").read_bytes()
    identity = edit(header[32:])
    (path / "store.zr").write_bytes(
        header[:16] + len(identity).to_bytes(8, "little") + header[24:32]
        + identity)


@pytest.mark.parametrize("kind", ["dense", "ragged"])
def test_an_identity_with_other_fields_is_a_value_error(tmp_path, kind):
    path = tmp_path / kind
    if kind == "dense":
        store = DenseStore(path, np.int16, (3,))
        store.append(np.arange(6, dtype=np.int16).reshape(2, 3))
    else:
        store = RaggedStore(path, np.int16)
        store.append([np.arange(4, dtype=np.int16)])
    store.close()
    meta_before = (path / "meta.zr").read_bytes()

    def add_split(identity):  # {..., "split": "train"}: one more map entry
        assert identity[0] in (0x81, 0x82)
        return bytes([identity[0] + 1]) + identity[1:] + b"\xa5split\xa5train"

    _rewrite_identity(path, add_split)
    cls = DenseStore if kind == "dense" else RaggedStore
    with pytest.raises(ValueError, match="type identity fields") as extra:
        cls(path)
    assert isinstance(extra.value, ZrecordError) and extra.value.code == -8
    assert isinstance(extra.value, errors.TypeIdentityError)
    assert (path / "meta.zr").read_bytes() == meta_before  # nothing changed

    def drop_dtype(identity):  # no "dtype", a "dtypx" instead
        return identity.replace(b"\xa5dtype", b"\xa5dtypx", 1)

    _rewrite_identity(path, lambda identity: drop_dtype(
        bytes([identity[0] - 1]) + identity[1:-12]))
    with pytest.raises(errors.TypeIdentityError, match="unexpected field"):
        cls(path)


def test_other_bad_formats_are_not_identity_errors(tmp_path):
    path = tmp_path / "d"
    DenseStore(path, np.int16, (3,)).close()
    # A type that does not decode is a bad format, not a fields mismatch.
    _rewrite_identity(path, lambda identity: identity.replace(b"<i2", b"<q9"))
    with pytest.raises(ZrecordError) as bad:
        DenseStore(path)
    assert bad.value.code == -8
    assert not isinstance(bad.value, (errors.TypeIdentityError, ValueError))


def test_every_index_form(tmp_path):
    data = np.arange(20, dtype=np.int64).reshape(10, 2)
    with DenseStore(tmp_path / "d", data.dtype, (2,), codec="raw") as ds:
        ds.append(data)
        np.testing.assert_array_equal(ds[3], data[3])
        np.testing.assert_array_equal(ds[np.int8(-1)], data[9])
        np.testing.assert_array_equal(ds[2:8:3], data[2:8:3])
        np.testing.assert_array_equal(ds[::-4], data[::-4])
        np.testing.assert_array_equal(ds[0, 5, 2], data[[0, 5, 2]])
        np.testing.assert_array_equal(ds[[-1, -10]], data[[9, 0]])
        np.testing.assert_array_equal(ds[np.array([7, 7], np.uint16)],
                                      data[[7, 7]])
        np.testing.assert_array_equal(ds[np.array([2**63], np.uint64) - 2**63],
                                      data[[0]])
        mask = np.arange(10) % 3 == 0
        np.testing.assert_array_equal(ds[mask], data[mask])
        # 2-D index arrays are flattened, as 1.7.7 does.
        np.testing.assert_array_equal(ds[np.array([[1, 2], [3, 4]])],
                                      data[[1, 2, 3, 4]])
        np.testing.assert_array_equal(ds.__getitems__([4, 1]), data[[4, 1]])
        assert ds[[]].shape == (0, 2)
        assert ds[True].tolist() == data[1].tolist()   # Python's True is 1
        # Deliberate: floats and masks of another length are refused.
        with pytest.raises(TypeError):
            ds[np.array([0.7, 2.2])]
        with pytest.raises(TypeError):
            ds[[0.5]]
        with pytest.raises(IndexError) as short:
            ds[np.array([True, False])]
        assert short.value.code == -3
        with pytest.raises(TypeError):
            ds["a"]
        with pytest.raises(TypeError):
            ds[None]


def test_delete_tolerates_duplicates_and_stats_are_the_references(tmp_path):
    with DenseStore(tmp_path / "d", np.int32, (), codec="raw") as ds:
        ds.append(np.arange(4, dtype=np.int32))
        ds.delete([0, 0, 1])
        np.testing.assert_array_equal(ds[:], [2, 3])
        assert ds.stats() == {"records": 2, "live_bytes": 8,
                              "chunk_bytes": 16, "reclaimable": 8}
        ds.delete(-1)
        ds.compact()
        assert ds.stats() == {"records": 1, "live_bytes": 4,
                              "chunk_bytes": 4, "reclaimable": 0}
        assert not ds.has_dict()
    with RaggedStore(tmp_path / "r", np.uint8, codec="raw") as rs:
        rs.append([b"abc", bytearray(b"de"), np.array([[1, 2], [3, 4]], np.uint8),
                   np.uint8(7)])
        # Payloads and shape records: 10 + 16 + 16 + 24 + 8 bytes.
        assert rs.stats()["live_bytes"] == 74
        assert rs[0].tolist() == [97, 98, 99] and rs[3].shape == ()
        rs.delete([3, 3])
        assert len(rs) == 3


def test_ragged_bytes_records_only_in_uint8_stores(tmp_path):
    with RaggedStore(tmp_path / "r", np.int32, codec="raw") as rs:
        with pytest.raises(ValueError, match="uint8"):
            rs.append([b"abcd"])
        with pytest.raises(ValueError, match="zero-byte"):
            rs.append([np.zeros((0, 3), np.int32)])
        assert len(rs) == 0


DTYPES = [
    np.dtype("|b1"), np.dtype("<i2"), np.dtype(">u8"), np.dtype("<f2"),
    np.dtype(">f8"), np.dtype(np.longdouble), np.dtype(">c8"),
    np.dtype(np.clongdouble), np.dtype("<U3"), np.dtype(">U1"),
    np.dtype("S5"), np.dtype("V3"), np.dtype("<M8[ns]"), np.dtype(">m8[D]"),
    np.dtype("M8[10ms]"), np.dtype("<M8"),
    np.dtype({"names": ["a", "b"], "formats": ["<i4", "<f8"],
              "offsets": [0, 8], "itemsize": 24}),
    np.dtype([(("T", "a"), "<i4"), ("b", ">f4", (2, 3))]),
    np.dtype([("p", [("x", "<i2"), ("y", "u1")], (2,)), ("q", "<M8[ms]")]),
    np.dtype([("a", "u1"), ("b", "<i8")], align=True),
    np.dtype([("name", "<U8"), ("raw", "S3")]),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_numpy_dtype_round_trips_exactly(tmp_path, dtype):
    rng = np.random.default_rng(0)
    records = np.frombuffer(rng.bytes(dtype.itemsize * 6), dtype=dtype)
    with DenseStore(tmp_path / "d", dtype, (3,)) as ds:
        ds.append(records.reshape(2, 3))
    with DenseStore(tmp_path / "d", dtype, (3,)) as ds:   # and opens with it
        assert ds.dtype == dtype and ds.dtype.itemsize == dtype.itemsize
        assert ds[:].tobytes() == records.tobytes()
    with RaggedStore(tmp_path / "r", dtype) as rs:
        rs.append([records[:1], records.reshape(2, 3), records[4:5].reshape(())])
    with RaggedStore(tmp_path / "r", dtype) as rs:
        assert rs.dtype == dtype
        got = rs[:]
        assert [g.shape for g in got] == [(1,), (2, 3), ()]
        assert got[1].tobytes() == records.tobytes()


def test_an_unfinished_creation_is_redone(tmp_path):
    path = tmp_path / "a" / "b" / "store"          # parents are created
    DenseStore(path, np.int32, (2,)).close()
    (path / "store.zr").unlink()               # as if creation stopped there
    with pytest.raises(ZrecordError, match="did not finish") as unfinished:
        DenseStore(path)
    assert unfinished.value.code == -8
    with DenseStore(path, np.float32, (4,), codec="raw") as ds:
        assert ds.dtype == np.float32 and len(ds) == 0
        ds.append(np.zeros((1, 4), np.float32))
    # A store with records is never taken over.
    (path / "store.zr").unlink()
    with pytest.raises(ZrecordError) as damaged:
        DenseStore(path, np.float32, (4,))
    assert damaged.value.code == -8


def test_a_creation_whose_header_a_power_cut_garbled_is_redone(tmp_path):
    path = tmp_path / "store"
    DenseStore(path, np.int32, (2,)).close()
    (path / "store.zr").unlink()
    (path / "meta.zr").write_bytes(bytes(range(0x80, 0xa0)))  # not a header
    with pytest.raises(ZrecordError, match="did not finish") as unfinished:
        DenseStore(path)
    assert unfinished.value.code == -8
    with DenseStore(path, np.int32, (2,)) as ds:
        assert len(ds) == 0
        ds.append(np.ones((1, 2), np.int32))
    # A store whose header is damaged is reported, never created over.
    (path / "meta.zr").write_bytes(bytes(range(0x80, 0xa0)))
    before = {f.name: f.read_bytes() for f in path.iterdir()}
    for attempt in (lambda: DenseStore(path),
                    lambda: DenseStore(path, np.int32, (2,))):
        with pytest.raises(ZrecordError, match="meta.zr") as damaged:
            attempt()
        assert damaged.value.code == -8
    assert {f.name: f.read_bytes() for f in path.iterdir()} == before


def test_a_corrupt_shape_record_is_code_minus_7(tmp_path):
    with RaggedStore(tmp_path / "r", np.int32, codec="raw") as rs:
        rs.append([np.arange(3, dtype=np.int32)])
    chunk = tmp_path / "r" / "0.chunk"
    data = bytearray(chunk.read_bytes())
    data[12 + 8:12 + 16] = (2**62).to_bytes(8, "little")   # shape (2^62,)
    chunk.write_bytes(bytes(data))
    with RaggedStore(tmp_path / "r") as rs:
        with pytest.raises(ZrecordError) as corrupt:
            rs[0]
        assert corrupt.value.code == -7


def test_user_codecs_are_found_by_the_registry(tmp_path):
    # Codec names are the C++ registry's; "raw" is one like any other.
    assert "raw" in loaderx.registered_plugins("codec")
    with DenseStore(tmp_path / "d", np.uint8, (1,), codec="raw") as ds:
        assert ds.codec == "raw"
