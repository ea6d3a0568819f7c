"""loaderx.utils.train_dict through the real native build: a trained
dictionary makes a zstd_dict store that round-trips and beats plain zstd on
small similar records; every kind of source trains the same way."""

import numpy as np
import pytest

from loaderx.utils import train_dict
from loaderx.zrecord import DICT_TIERS, DenseStore, RaggedStore, ZrecordError


def tiles(count):
    """Small, similar records: 8x8 tiles of a shared pattern plus noise."""
    rng = np.random.default_rng(0)
    base = (np.arange(64, dtype=np.uint8) * 3).reshape(8, 8)
    noise = (rng.random((count, 8, 8)) < 0.1) * rng.integers(0, 255, (count, 8, 8))
    return (base[None] ^ noise).astype(np.uint8)


def test_dictionary_store_round_trips_and_beats_plain_zstd(tmp_path):
    data = tiles(5000)
    d = train_dict(data, tier="fast")
    assert isinstance(d, bytes) and 0 < len(d) <= DICT_TIERS["fast"]["size"]
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
        assert len(train_dict(source, tier="fast")) > 0
    store.close()
    ragged.close()


def test_the_same_samples_give_the_same_dictionary(tmp_path):
    data = tiles(3000)
    path = tmp_path / "dict.zr"
    d = train_dict(data, path=path)                 # tier None: "balanced"
    assert path.read_bytes() == d
    assert d[:4] == b"\x37\xa4\x30\xec"            # a zstd dictionary
    assert train_dict(data, tier="balanced") == d
    # The same rows as an iterable prefix: the whole of it fits the budget.
    assert train_dict(iter(list(data))) == d


def test_sampling_follows_the_tier_budget(tmp_path):
    # 40000 records of 1 KiB: the "fast" budget (4 MiB) takes 4096 of them,
    # evenly strided; the iterable form takes the first 4096.
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, 1024, dtype=np.uint8)
    data = np.stack([np.roll(base, i % 61) for i in range(40000)])
    strided = data[np.unique(np.linspace(0, 39999, 4096).astype(np.int64))]
    assert train_dict(data, tier="fast") == train_dict(list(strided),
                                                       tier="fast")
    assert train_dict(iter(data), tier="fast") == train_dict(list(data[:4096]),
                                                             tier="fast")
    with DenseStore(tmp_path / "s", data.dtype, (1024,), codec="raw") as ds:
        ds.append(data)
        assert train_dict(ds, tier="fast") == train_dict(data, tier="fast")


def test_bad_requests_are_value_errors(tmp_path):
    for tier in ("huge", 1, "small"):
        with pytest.raises(ValueError, match="tier"):
            train_dict(tiles(100), tier=tier)
    with pytest.raises(ValueError):
        train_dict([])
    with pytest.raises(ValueError):
        train_dict(np.zeros((0, 4), np.uint8))
    with DenseStore(tmp_path / "e", np.uint8, (2,)) as empty:
        with pytest.raises(ValueError, match="empty store"):
            train_dict(empty)
    with pytest.raises(ZrecordError) as few:
        train_dict([b"ab", b"cd"])
    assert few.value.code == -9
