"""The public Python API as typed code uses it. tools/ci/test_wheel.sh
type-checks this file with `mypy --strict` against the installed wheel
(which needs its py.typed marker and annotated public signatures: each
`assert_type` fails on an unannotated result, which is `Any`), and
installed_test.py runs it.
"""

import pathlib
import pickle
from typing import Any, assert_type

import numpy as np
import numpy.typing as npt

from loaderx.dataloader import DataLoader
from loaderx.errors import StoreBusyError, ZrecordError, from_native
from loaderx.utils import train_dict
from loaderx.verify_report import VerifyReport
from loaderx.vfs import Vfs, registered_plugins
from loaderx.zrecord import DICT_TIERS, DenseStore, RaggedStore
from loaderx.zsampler import Sampler


def use_the_api(directory: pathlib.Path) -> None:
    data = np.arange(240, dtype=np.float32).reshape(20, 3, 4)
    dictionary = train_dict(data, tier="fast")
    assert_type(dictionary, bytes)
    assert_type(DICT_TIERS["fast"]["size"], int)

    with DenseStore(directory / "dense", data.dtype, (3, 4), codec="zstd_dict",
                    dict_bytes=dictionary) as dense:
        assert_type(dense, DenseStore)
        assert_type(dense.append(data), int)
    dense = DenseStore(directory / "dense")
    assert_type(len(dense), int)
    assert_type(dense.item_shape, tuple[int, ...])
    assert_type(dense.dtype, np.dtype[Any])
    assert_type(dense.codec, str)
    assert_type(dense.path, pathlib.Path)
    assert_type(dense.stats(), dict[str, int])
    assert_type(dense.has_dict(), bool)
    batch = dense.__getitems__(np.arange(4))
    assert_type(batch, npt.NDArray[Any])
    assert batch.shape == (4, 3, 4)
    assert_type(dense.read_only, bool)
    report = dense.verify()
    assert_type(report, VerifyReport)
    assert_type(report.ok, bool)
    assert_type(report.records, int)
    assert_type(report.damaged, list[int])
    assert_type(report.problems, list[str])
    assert_type(report.metadata_verified, bool)
    assert report.ok and report.verified == report.records == 20
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))

    assert_type(dense.verify(progress), VerifyReport)
    assert_type(dense.verify(progress=lambda done, total: None), VerifyReport)
    assert seen and seen[-1] == (20, 20)
    dense.close()
    with DenseStore(directory / "dense", read_only=True) as shared:
        copy = pickle.loads(pickle.dumps(shared))
        assert isinstance(copy, DenseStore) and copy.read_only
        copy.close()

    with RaggedStore(directory / "ragged", np.int32, codec="raw") as ragged:
        first = ragged.append([np.arange(n, dtype=np.int32) for n in (1, 2)])
        assert_type(first, int)
        assert_type(ragged.__getitems__([0, 1]), list[npt.NDArray[Any]])

    sampler = Sampler(100, 8, Sampler.Mode.CYCLIC, seed=7)
    assert_type(sampler.next(), npt.NDArray[np.uint64])
    assert_type(sampler.batch(3), npt.NDArray[np.uint64])
    assert_type(sampler.mode, Sampler.Mode)
    assert_type(sampler.step, int)

    with DataLoader({"x": DenseStore(directory / "dense")}, batch_size=4,
                    num_workers=1) as loader:
        assert_type(loader, DataLoader)
        assert_type(loader.sampler, Sampler)
        assert next(loader)["x"].shape == (4, 3, 4)
        loader.seek(10)
        assert_type(loader.step, int)

    fs = Vfs("memory")
    fs.write_file("/f", b"bytes")
    assert_type(fs.read_file("/f"), bytes)
    assert_type(fs.list("/"), list[str])
    assert_type(registered_plugins("codec"), list[str])

    error = from_native(0, -14, "held elsewhere")
    assert_type(error, Exception)
    assert isinstance(error, StoreBusyError) and isinstance(error, ZrecordError)
    assert error.code == -14
