"""Checksums against the published loaderx 1.7.7, live, on real files.

1.7.7 keeps no checksums and ignores ours (checksums.lx, journal.lx). What it
writes into one of our stores must read back here without a checksum error:
in particular a record it replaces in place, under exactly the table entry
ours had checksummed (delete the last record, compact, append one of the
same size), which only meta.zr's modification time tells apart from damage.
And our stores, maintained here (delete, compact: the journal and the
sidecar in place), must stay stores 1.7.7 reads as its own.
"""

import json

import numpy as np
import pytest

import reference

WIDTH = 16

# 1.7.7: rewrite the last record in place, then move it by a swap-last
# delete; print what it reads.
REWRITE = r"""
import json, sys
import numpy as np
from loaderx.zrecord import DenseStore
ds = DenseStore(sys.argv[1])
ds.delete([len(ds) - 1])
ds.compact()
ds.append(np.full((1, 16), 7, dtype=np.uint8))
ds.delete([0])
print(json.dumps(ds[np.arange(len(ds))].tolist()))
ds.close()
"""

READ = r"""
import json, sys
import numpy as np
from loaderx.zrecord import DenseStore
ds = DenseStore(sys.argv[1])
print(json.dumps(ds[np.arange(len(ds))].tolist()))
ds.close()
"""


def _records(count):
    return np.arange(count * WIDTH, dtype=np.uint8).reshape(count, WIDTH)


@pytest.mark.parametrize("codec", ["raw", "zstd"])
def test_records_1_7_7_rewrote_are_not_damage(tmp_path, codec):
    from loaderx.zrecord import DenseStore

    path = str(tmp_path / "store")
    with DenseStore(path, np.uint8, (WIDTH,), codec=codec) as ds:
        ds.append(_records(10))
    theirs = reference.run_reference_json(REWRITE, path)
    expected = _records(10)[:9].copy()
    expected[0] = 7  # The record it appended, moved into slot 0.
    assert np.array_equal(np.array(theirs, dtype=np.uint8), expected)
    # Read here with checksums verified: no error, the same records.
    with DenseStore(path) as ds:
        assert np.array_equal(ds[np.arange(len(ds))], expected)
        # And what is appended here from now on is checked again.
        ds.append(_records(1))
    with DenseStore(path) as ds:
        assert np.array_equal(ds[np.arange(len(ds))][-1], _records(1)[0])


@pytest.mark.parametrize("codec", ["raw", "zstd"])
def test_stores_maintained_here_stay_readable_by_1_7_7(tmp_path, codec):
    from loaderx.zrecord import DenseStore

    path = str(tmp_path / "store")
    with DenseStore(path, np.uint8, (WIDTH,), codec=codec) as ds:
        ds.append(_records(30))
        ds.delete([0, 3, 3, 29])
        ds.compact()
        ds.append(_records(2))
        expected = ds[np.arange(len(ds))]
    names = {p.name for p in (tmp_path / "store").iterdir()}
    assert {"checksums.lx", "journal.lx"} <= names
    theirs = reference.run_reference_json(READ, path)
    assert np.array_equal(np.array(theirs, dtype=np.uint8), expected)
