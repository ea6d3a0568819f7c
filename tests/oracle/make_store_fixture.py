"""Regenerates tests/data/reference_1_7_7/, stores written by the published
loaderx 1.7.7.

    python3 tests/oracle/make_store_fixture.py [output_directory]
    bazel run //tests/oracle:make_store_fixture        (writes into the tree)

Runs `WRITER` in the reference's own venv (`reference.py` installs
loaderx==1.7.7 from PyPI into a cached venv the first time). The stores are
small (a few KB) and their records follow the formulas below, which the
readers check: src/reference_fixture_test.cc (C++, every store) and
tests/java/org/loaderx/ReferenceFixtureTest.java (Java, the dense ones).

  dense_zstd          float32, item_shape (2, 3), 10 records, codec zstd:
                      record i, element (j, k) = i * 10 + j * 3 + k
  dense_struct_raw    [('id', '<i4'), ('x', '<f4', (2,))], item_shape (),
                      6 records, codec raw: id = 100 + i, x = (i / 2, -i)
  ragged_raw          uint8, codec raw, records of shapes (3,), (2, 2), (),
                      (5,), (1, 1, 2): element n of record i = (7 i + n) % 256

1.7.7 places compressed records in the order its threads finish them, so
regenerating may reorder dense_zstd's frames; the readers go through the
record table and do not care.
"""

import os
import pathlib
import shutil
import sys

import reference

WRITER = r'''
import sys
import numpy as np
from loaderx.zrecord import DenseStore, RaggedStore
root = sys.argv[1]
i, j, k = np.meshgrid(np.arange(10), np.arange(2), np.arange(3), indexing="ij")
with DenseStore(f"{root}/dense_zstd", np.float32, (2, 3), codec="zstd") as ds:
    ds.append((i * 10 + j * 3 + k).astype(np.float32))
struct = np.dtype([("id", "<i4"), ("x", "<f4", (2,))])
records = np.zeros(6, struct)
records["id"] = 100 + np.arange(6)
records["x"] = np.stack([np.arange(6) / 2, -np.arange(6)], axis=1)
with DenseStore(f"{root}/dense_struct_raw", struct, (), codec="raw") as ds:
    ds.append(records)
shapes = [(3,), (2, 2), (), (5,), (1, 1, 2)]
with RaggedStore(f"{root}/ragged_raw", np.uint8, codec="raw") as rs:
    rs.append([((7 * n + np.arange(int(np.prod(s)))) % 256).astype(np.uint8)
               .reshape(s) for n, s in enumerate(shapes)])
'''


def default_output():
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if root is None:
        root = pathlib.Path(__file__).absolute().parent.parent.parent
    return pathlib.Path(root) / "tests" / "data" / "reference_1_7_7"


def main(argv):
    output = pathlib.Path(argv[1]) if len(argv) > 1 else default_output()
    for name in ("dense_zstd", "dense_struct_raw", "ragged_raw"):
        shutil.rmtree(output / name, ignore_errors=True)
    output.mkdir(parents=True, exist_ok=True)
    reference.run_reference(WRITER, output)
    print(f"wrote {output}")


if __name__ == "__main__":
    main(sys.argv)
