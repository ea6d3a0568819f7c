"""loaderx.utils.train_dict through the real native build: a trained
dictionary makes a zstd_dict store that round-trips and beats plain zstd on
small similar records; every kind of source trains the same way."""

import numpy as np
import pytest

from loaderx.utils import DICT_TIERS, train_dict
from loaderx.zrecord import DenseStore, RaggedStore


def tiles(count):
    """Small, similar records: 8x8 tiles of a shared pattern plus noise."""
    rng = np.random.default_rng(0)
    base = (np.arange(64, dtype=np.uint8) * 3).reshape(8, 8)
    noise = (rng.random((count, 8, 8)) < 0.1) * rng.integers(0, 255, (count, 8, 8))
    return (base[None] ^ noise).astype(np.uint8)


def test_dictionary_store_round_trips_and_beats_plain_zstd(tmp_path):
    data = tiles(5000)
    d = train_dict(data, tier="small")
    assert isinstance(d, bytes) and 0 < len(d) <= DICT_TIERS["small"]["dict_bytes"]
    with DenseStore(tmp_path / "dict", data.dtype, data.shape[1:],
                    codec="zstd_dict", dict_bytes=d) as ds:
        ds.append(data)
    with DenseStore(tmp_path / "plain", data.dtype, data.shape[1:],
                    codec="zstd") as ds:
        ds.append(data)
    with_dict = DenseStore(tmp_path / "dict")
    plain = DenseStore(tmp_path / "plain")
    np.testing.assert_array_equal(with_dict[:], data)
    assert with_dict.codec == "zstd_dict"
    # 64-byte tiles barely compress alone; the dictionary holds their pattern.
    assert with_dict.stats()["live_bytes"] * 3 < plain.stats()["live_bytes"] * 2
    with_dict.close()
    plain.close()


def test_every_source_trains(tmp_path):
    data = tiles(3000)
    with DenseStore(tmp_path / "s", data.dtype, data.shape[1:]) as ds:
        ds.append(data)
    with RaggedStore(tmp_path / "r", np.uint8) as rs:
        rs.append(list(data))
    store = DenseStore(tmp_path / "s")
    ragged = RaggedStore(tmp_path / "r")
    for source in (data, store, ragged, iter(list(data)),
                   [t.tobytes() for t in data]):
        assert len(train_dict(source, tier="small")) > 0
    store.close()
    ragged.close()


def test_bad_requests_are_value_errors():
    with pytest.raises(ValueError, match="tier"):
        train_dict(tiles(100), tier="huge")
    with pytest.raises(ValueError):
        train_dict([])
    with pytest.raises(ValueError, match="cannot train"):
        train_dict([b"ab", b"cd"])
