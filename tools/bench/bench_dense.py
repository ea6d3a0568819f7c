"""Dense store benchmark: fixed-shape random batch gather and write through
the public Python binding, against array-store alternatives, in one run.

The reference design's DenseStore table: 256 KiB records (512x512
single-channel images, structured and mildly compressible), random batches
of 256 (64 MiB). Every backend gets the same records and the same random
index plans, and names its codec:

  loaderx-raw / loaderx-zstd   DenseStore, raw and zstd
  npy-mmap-raw                 np.save, then np.load(mmap_mode='r')[indices]
  hdf5-raw                     h5py dataset, one (512, 512) chunk per record
  lmdb-raw                     one LMDB value per record

Before timing, every backend's every planned batch is checked for exact
dtype, shape, order and values. "write" is page-cache ingestion of the
whole set (no fsync for anyone); "gather" divides the logical bytes
returned by the elapsed time; "disk" is allocated blocks. Ratios are to
npy-mmap-raw. Needs h5py and lmdb (Debian's python3-h5py, python3-lmdb:
`bash tools/bench/install_bench_deps.sh`).

    bazel run --config=opt //tools/bench:bench_dense -- [--records 1000]
        [--batches 20] [--dir /tmp]
"""

import argparse
import os
import shutil
import time

import h5py
import lmdb
import numpy as np

from loaderx.zrecord import DenseStore

from tools.bench.bench_common import LoaderxBackend, disk_bytes

SIDE = 512


def make_records(count):
    """A gradient with 3 bits of noise in every other byte: zstd shrinks it
    about 1.8x, like the reference's structured data (1.74x)."""
    rng = np.random.default_rng(0)
    base = (np.add.outer(np.arange(SIDE) * 5, np.arange(SIDE) * 3) % 256).astype(np.uint8)
    records = np.empty((count, SIDE, SIDE), dtype=np.uint8)
    for i in range(count):
        noise = rng.integers(0, 8, (SIDE, SIDE), dtype=np.uint8)
        noise[:, ::2] = 0
        records[i] = (base + i * 7) ^ noise
    return records


class NpyBackend:
    name = "npy-mmap-raw"

    def write(self, path, records):
        np.save(path, records)
        self.array = np.load(path, mmap_mode="r")

    def gather(self, indices):
        return self.array[indices]

    def close(self):
        del self.array


class Hdf5Backend:
    name = "hdf5-raw"

    def write(self, path, records):
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=records, chunks=(1, SIDE, SIDE))
        self.file = h5py.File(path, "r")
        self.dataset = self.file["x"]

    def gather(self, indices):
        # One chunk read per record: h5py's list indexing (point selection)
        # is far slower than this on random batches.
        out = np.empty((len(indices), SIDE, SIDE), dtype=self.dataset.dtype)
        for slot, index in enumerate(indices):
            self.dataset.read_direct(out, np.s_[int(index)], np.s_[slot])
        return out

    def close(self):
        self.file.close()


class LmdbBackend:
    name = "lmdb-raw"

    def write(self, path, records):
        self.env = lmdb.open(path, map_size=records.nbytes * 2 + (1 << 30),
                             sync=False, metasync=False, readahead=False)
        with self.env.begin(write=True) as txn:
            for i, record in enumerate(records):
                txn.put(i.to_bytes(8, "big"), record.tobytes())
        self.shape = records.shape[1:]
        self.dtype = records.dtype

    def gather(self, indices):
        out = np.empty((len(indices),) + self.shape, dtype=self.dtype)
        with self.env.begin(buffers=True) as txn:
            for slot, index in enumerate(indices):
                out[slot] = np.frombuffer(
                    txn.get(int(index).to_bytes(8, "big")),
                    dtype=self.dtype).reshape(self.shape)
        return out

    def close(self):
        self.env.close()


# How the loaderx backends create their store.
CREATE = lambda path, records, codec: DenseStore(
        path, records.dtype, records.shape[1:], codec=codec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--dir", default="/tmp")
    args = parser.parse_args()

    records = make_records(args.records)
    rng = np.random.default_rng(42)
    plans = [rng.integers(0, args.records, args.batch) for _ in range(args.batches)]
    batch_bytes = args.batch * records[0].nbytes
    directory = os.path.join(args.dir, "loaderx_bench_dense")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)

    backends = [LoaderxBackend(DenseStore, CREATE, "raw"),
                LoaderxBackend(DenseStore, CREATE, "zstd"), NpyBackend(),
                Hdf5Backend(), LmdbBackend()]
    results = {}
    for backend in backends:
        path = os.path.join(directory, backend.name)
        start = time.perf_counter()
        backend.write(path + (".npy" if isinstance(backend, NpyBackend) else ""),
                      records)
        write_seconds = time.perf_counter() - start
        for plan in plans:  # Validate every planned batch before timing.
            got = backend.gather(plan)
            assert got.dtype == records.dtype, backend.name
            assert got.shape == (args.batch, SIDE, SIDE), backend.name
            assert np.array_equal(got, records[plan]), f"{backend.name}: wrong values"
        start = time.perf_counter()
        for plan in plans:
            backend.gather(plan)
        gather_seconds = time.perf_counter() - start
        backend.close()
        results[backend.name] = (
            records.nbytes / write_seconds / 2**20,
            len(plans) * batch_bytes / gather_seconds / 2**20,
            disk_bytes(path + (".npy" if isinstance(backend, NpyBackend) else "")) / 2**20)

    base = results["npy-mmap-raw"]
    print(f"{args.records} records of {SIDE}x{SIDE} uint8 (256 KiB), batch "
          f"{args.batch}, {args.batches} random batches, {os.cpu_count()} cores")
    print(f"{'store':14} {'write MiB/s':>12} {'gather MiB/s':>13} {'vs npy':>7} "
          f"{'disk MiB':>9}")
    for name, (write, gather, disk) in results.items():
        print(f"{name:14} {write:>12.0f} {gather:>13.0f} {gather / base[1]:>6.2f}x "
              f"{disk:>9.1f}")
    shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
