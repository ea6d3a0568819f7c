"""Ragged store benchmark: variable-shape random batch gather through the
public Python binding, against record-store alternatives, in one run.

The reference design's RaggedStore table: variable-resolution CHW RGB
images whose height and width are independently lognormal, clipped to
64..512 (medians near 224), uint8; random batches of 256. Every backend
persists payload plus exact shape and must return an ordered list of
(3, H, W) arrays. Backends (each names its codec):

  loaderx-raw / loaderx-zstd   RaggedStore, raw and zstd
  lmdb-raw                     one LMDB value per record: shape, then bytes
  npy-files-raw                one .npy file per record, np.load each

Before timing, every planned batch of every backend is checked for exact
dtype, shapes, order and values. "write" is page-cache ingestion (nobody
fsyncs), "gather" divides the logical payload bytes returned by the
elapsed time, "disk" is allocated blocks. Ratios are to lmdb-raw, the
fastest raw record contender in the reference. Needs lmdb
(`bash tools/bench/install_bench_deps.sh`).

    bazel run --config=opt //tools/bench:bench_ragged -- [--records 2500]
        [--batches 50] [--dir /tmp]
"""

import argparse
import os
import shutil
import struct
import time

import lmdb
import numpy as np

from loaderx.zrecord import RaggedStore

from tools.bench.bench_common import LoaderxBackend, disk_bytes


def make_records(count):
    """CHW images with lognormal sides: gradients with light noise."""
    rng = np.random.default_rng(0)
    sides = np.clip(rng.lognormal(np.log(224), 0.5, (count, 2)), 64, 512).astype(int)
    records = []
    for i, (h, w) in enumerate(sides):
        base = np.add.outer(np.arange(h) * 5, np.arange(w) * 3) + i * 7
        noise = rng.integers(0, 8, (3, h, w))
        noise[:, :, ::2] = 0
        records.append(((base[None] + np.arange(3)[:, None, None] * 40) % 256
                        ^ noise).astype(np.uint8))
    return records


class LmdbBackend:
    name = "lmdb-raw"

    def write(self, path, records):
        size = sum(r.nbytes for r in records)
        self.env = lmdb.open(path, map_size=size * 2 + (1 << 30), sync=False,
                             metasync=False, readahead=False)
        with self.env.begin(write=True) as txn:
            for i, record in enumerate(records):
                txn.put(i.to_bytes(8, "big"),
                        struct.pack("<3Q", *record.shape) + record.tobytes())

    def gather(self, indices):
        out = []
        with self.env.begin(buffers=True) as txn:
            for index in indices:
                value = txn.get(int(index).to_bytes(8, "big"))
                shape = struct.unpack_from("<3Q", value)
                out.append(np.frombuffer(value, np.uint8, offset=24)
                           .reshape(shape).copy())
        return out

    def close(self):
        self.env.close()


class NpyFilesBackend:
    name = "npy-files-raw"

    def write(self, path, records):
        os.makedirs(path)
        for i, record in enumerate(records):
            np.save(os.path.join(path, f"{i}.npy"), record)
        self.path = path

    def gather(self, indices):
        return [np.load(os.path.join(self.path, f"{int(i)}.npy")) for i in indices]

    def close(self):
        pass


# How the loaderx backends create their store.
CREATE = lambda path, records, codec: RaggedStore(
        path, np.uint8, codec=codec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2500)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--dir", default="/tmp")
    args = parser.parse_args()

    records = make_records(args.records)
    logical = sum(r.nbytes for r in records)
    rng = np.random.default_rng(42)
    plans = [rng.integers(0, args.records, args.batch) for _ in range(args.batches)]
    directory = os.path.join(args.dir, "loaderx_bench_ragged")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)

    results = {}
    for backend in [LoaderxBackend(RaggedStore, CREATE, "raw"),
                LoaderxBackend(RaggedStore, CREATE, "zstd"), LmdbBackend(),
                    NpyFilesBackend()]:
        path = os.path.join(directory, backend.name)
        start = time.perf_counter()
        backend.write(path, records)
        write_seconds = time.perf_counter() - start
        for plan in plans:  # Validate every planned batch before timing.
            got = backend.gather(plan)
            assert len(got) == len(plan), backend.name
            for array, index in zip(got, plan):
                want = records[index]
                assert array.dtype == want.dtype and array.shape == want.shape, \
                    f"{backend.name}: record {index} has the wrong type or shape"
                assert np.array_equal(array, want), f"{backend.name}: wrong values"
        returned = 0
        start = time.perf_counter()
        for plan in plans:
            returned += sum(a.nbytes for a in backend.gather(plan))
        gather_seconds = time.perf_counter() - start
        backend.close()
        results[backend.name] = (logical / write_seconds / 2**20,
                                 returned / gather_seconds / 2**20,
                                 disk_bytes(path) / 2**20)

    base = results["lmdb-raw"]
    print(f"{args.records} CHW uint8 images (median side "
          f"{int(np.median([r.shape[1] for r in records]))}), "
          f"{logical / 2**20:.1f} MiB, batch {args.batch}, {args.batches} "
          f"random batches, {os.cpu_count()} cores")
    print(f"{'store':14} {'write MiB/s':>12} {'gather MiB/s':>13} {'vs lmdb':>8} "
          f"{'disk MiB':>9}")
    for name, (write, gather, disk) in results.items():
        print(f"{name:14} {write:>12.0f} {gather:>13.0f} {gather / base[1]:>7.2f}x "
              f"{disk:>9.1f}")
    shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
