"""A typed owner the engine has never heard of, through Python: the
"token_sequence" owner (tests/owners/token_sequence_owner.cc) is linked into
this test's extension, as a user links their own C++ plugin into theirs
(`loaderx_python_package`), and `loaderx.typed_store.TypedStore` serves its
stores by the owner's geometry: fixed-width token sequences read back as
(B, length) arrays. Nothing in src/ or in the Python package knows the
kind."""

import numpy as np
import pytest

import loaderx
from loaderx.dataloader import DataLoader
from loaderx.typed_store import TypedStore
from loaderx.zrecord import DenseStore, RaggedStore, ZrecordError


def swap_last(ids, targets):
    ids = list(ids)
    for target in sorted(set(targets), reverse=True):
        ids[target] = ids[-1]
        ids.pop()
    return ids


def test_the_owner_is_linked_into_this_extension():
    assert "token_sequence" in loaderx.registered_plugins("typed_owner")
    assert {"dense", "ragged"} <= set(loaderx.registered_plugins("typed_owner"))


@pytest.mark.parametrize("codec", ["raw", "zstd"])
def test_create_append_gather_reopen_compact(tmp_path, codec):
    path = tmp_path / "tokens"
    tokens = (np.arange(10 * 16, dtype=np.uint16).reshape(10, 16) * 409)
    with TypedStore(path, "token_sequence", np.uint16, (16,),
                    codec=codec) as ts:
        assert ts.kind == "token_sequence" and ts.fixed_width
        assert ts.item_shape == (16,) and ts.dtype == np.uint16
        assert ts.codec == codec
        assert ts.append(tokens[:6]) == 0
        assert ts.append(tokens[6:]) == 6
        assert len(ts) == 10
        batch = ts[[9, 0, 3]]
        assert batch.shape == (3, 16) and batch.dtype == np.uint16
        np.testing.assert_array_equal(batch, tokens[[9, 0, 3]])
        np.testing.assert_array_equal(ts[-1], tokens[9])
        np.testing.assert_array_equal(ts[2:4], tokens[2:4])
        np.testing.assert_array_equal(
            ts[np.arange(10) % 3 == 0], tokens[::3])

    with TypedStore(path) as ts:  # any kind opens; the store knows its own
        assert ts.kind == "token_sequence" and ts.item_shape == (16,)
        ts.delete([0, 0, 5])
        survivors = swap_last(range(10), [0, 0, 5])
        before = ts.stats()
        assert before["records"] == 8 and before["reclaimable"] > 0
        ts.compact()
        after = ts.stats()
        assert after["records"] == 8 and after["reclaimable"] == 0
        assert after["live_bytes"] == before["live_bytes"]
        np.testing.assert_array_equal(ts[:], tokens[survivors])

    # Reopened by kind, with the request checked against the store.
    with TypedStore(path, "token_sequence", np.uint16, (16,)) as ts:
        np.testing.assert_array_equal(ts[:], tokens[survivors])
        assert repr(ts).startswith("TypedStore(")
    with pytest.raises(ValueError, match="holds item_shape"):
        TypedStore(path, "token_sequence", item_shape=(8,))


def test_the_owner_validates_and_the_engine_checks_records(tmp_path):
    with pytest.raises(ValueError, match="token ids"):
        TypedStore(tmp_path / "f", "token_sequence", np.float32, (16,))
    with pytest.raises(ValueError, match="length"):
        TypedStore(tmp_path / "f", "token_sequence", np.uint16, (2, 8))
    assert not (tmp_path / "f").exists()
    # A fixed-width kind needs its item_shape to be created.
    with pytest.raises(FileNotFoundError):
        TypedStore(tmp_path / "f", "token_sequence", np.uint16)
    with pytest.raises(KeyError, match="no_such_kind"):
        TypedStore(tmp_path / "f", "no_such_kind", np.uint16, (4,))
    with TypedStore(tmp_path / "t", "token_sequence", np.int32, (4,),
                    codec="raw") as ts:
        with pytest.raises(ValueError, match="dtype"):
            ts.append(np.zeros((1, 4), np.int64))
        with pytest.raises(ValueError, match="shape"):
            ts.append(np.zeros((1, 5), np.int32))
        with pytest.raises(ValueError, match="at least one"):
            ts.append(np.zeros((0, 4), np.int32))
        assert len(ts) == 0
        ts.append(np.ones((2, 4), np.int32))
        with pytest.raises(IndexError) as out:
            ts[2]
        assert out.value.code == -3


def test_kinds_are_not_interchangeable(tmp_path):
    path = tmp_path / "tokens"
    TypedStore(path, "token_sequence", np.uint8, (3,)).close()
    for opener in (lambda: DenseStore(path), lambda: RaggedStore(path),
                   lambda: TypedStore(path, "dense")):
        with pytest.raises(ValueError) as mismatch:
            opener()
        assert isinstance(mismatch.value, ZrecordError)
        assert mismatch.value.code == -13
    # A dense store opened generically is a dense store.
    with DenseStore(tmp_path / "d", np.float32, (2,)) as ds:
        ds.append(np.ones((1, 2), np.float32))
    with TypedStore(tmp_path / "d") as ts:
        assert ts.kind == "dense" and ts.item_shape == (2,)


def test_a_loader_streams_the_owners_records(tmp_path):
    tokens = np.arange(12 * 4, dtype=np.int32).reshape(12, 4)
    labels = np.arange(12, dtype=np.int64)
    with TypedStore(tmp_path / "x", "token_sequence", np.int32, (4,),
                    codec="raw") as ts, \
            DenseStore(tmp_path / "y", np.int64, (), codec="raw") as ys:
        ts.append(tokens)
        ys.append(labels)
        with DataLoader({"x": ts, "y": ys}, batch_size=4, mode=0) as loader:
            for _ in range(3):
                batch = next(loader)
                assert batch["x"].shape == (4, 4)
                np.testing.assert_array_equal(batch["x"], tokens[batch["y"]])


def test_a_store_of_any_kind_pickles_by_path(tmp_path):
    import pickle
    path = tmp_path / "tokens"
    ts = TypedStore(path, "token_sequence", np.uint16, (4,), codec="raw")
    ts.append(np.arange(8, dtype=np.uint16).reshape(2, 4))
    ts.close()
    again = pickle.loads(pickle.dumps(ts))  # reopens whatever kind is there
    assert type(again) is TypedStore and again.kind == "token_sequence"
    np.testing.assert_array_equal(again[1], [4, 5, 6, 7])
    again.close()
