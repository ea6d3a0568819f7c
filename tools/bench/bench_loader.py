"""Loader benchmark: the full input pipeline (sample, fetch, collate, hand
over a batch) of loaderx's DataLoader against torch's, in one run.

The reference design's loader table: fixed-shape 256 KiB records (512x512
single-channel images) with int64 labels, batch 256 (64 MiB), 4 workers.

  loaderx        DataLoader over zstd DenseStores (cyclic, the default
                 mode), 4 worker threads, 4 batches prefetched beyond them
  loaderx-raw    the same over raw stores
  torch          torch.utils.data.DataLoader, 4 worker processes, over the
                 same records as an np.load(mmap_mode='r') array, shuffled

Before timing, each contender's batches are checked against the source:
every image must be the record its label names. Then each runs
`--warmup` batches and is timed over `--batches`. Prints batches/s, the
ratio to torch, and the peak resident set size of this process and its
children.

Needs torch (Debian's python3-torch: `bash tools/bench/install_bench_deps.sh`).

    bazel run --config=opt //tools/bench:bench_loader -- [--records 1000]
        [--batches 40] [--dir /tmp]
"""

import argparse
import os
import resource
import shutil
import time

import numpy as np
import torch
import torch.utils.data

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore

SIDE = 512


def make_records(count):
    """Image-like records: a gradient with light noise, each stamped with
    its index in the first 8 bytes."""
    rng = np.random.default_rng(0)
    base = (np.add.outer(np.arange(SIDE), np.arange(SIDE)) % 256).astype(np.uint8)
    images = np.empty((count, SIDE, SIDE), dtype=np.uint8)
    for i in range(count):
        noise = rng.integers(0, 8, (SIDE, SIDE), dtype=np.uint8)
        images[i] = base ^ noise
        images[i].reshape(-1)[:8] = np.frombuffer(np.int64(i).tobytes(), np.uint8)
    return images


def stamp(images):
    """The index stamped into each image of a batch."""
    flat = np.ascontiguousarray(images).reshape(len(images), -1)[:, :8]
    return flat.copy().view(np.int64).reshape(-1)


class MmapImages(torch.utils.data.Dataset):
    def __init__(self, path):
        self.path = path
        self.images = None
        self.length = len(np.load(path, mmap_mode="r"))

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.images is None:  # Opened per worker process.
            self.images = np.load(self.path, mmap_mode="r")
        return torch.from_numpy(np.array(self.images[index])), index


def loaderx_batches(directory, codec, batch_size, workers):
    loader = DataLoader({"image": DenseStore(f"{directory}/{codec}_image"),
                         "label": DenseStore(f"{directory}/{codec}_label")},
                        num_workers=workers, batch_size=batch_size,
                        prefetch_size=workers)
    try:
        while True:
            batch = next(loader)
            yield batch["image"], batch["label"]
    finally:
        loader.close()


def torch_batches(directory, batch_size, workers):
    loader = torch.utils.data.DataLoader(
        MmapImages(f"{directory}/images.npy"), batch_size=batch_size,
        shuffle=True, drop_last=True, num_workers=workers,
        persistent_workers=True,
        prefetch_factor=2)
    while True:  # Epochs, one after another.
        for images, labels in loader:
            yield images.numpy(), labels.numpy()


def run(name, batches, args):
    for _ in range(3):  # Validate before timing.
        images, labels = next(batches)
        assert images.shape == (args.batch, SIDE, SIDE), images.shape
        assert (stamp(images) == labels).all(), f"{name}: images and labels differ"
    for _ in range(args.warmup):
        next(batches)
    start = time.perf_counter()
    for _ in range(args.batches):
        next(batches)
    rate = args.batches / (time.perf_counter() - start)
    batches.close()
    return rate


def peak_rss_mib():
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--dir", default="/tmp")
    args = parser.parse_args()

    directory = os.path.join(args.dir, "loaderx_bench_loader")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    images = make_records(args.records)
    labels = np.arange(args.records, dtype=np.int64)
    np.save(f"{directory}/images.npy", images)
    for codec in ("zstd", "raw"):
        with DenseStore(f"{directory}/{codec}_image", images.dtype,
                        images.shape[1:], codec=codec) as store:
            for start in range(0, args.records, 256):
                store.append(images[start:start + 256])
        with DenseStore(f"{directory}/{codec}_label", labels.dtype, (),
                        codec=codec) as store:
            store.append(labels)
    del images

    results = {}
    results["loaderx"] = run("loaderx", loaderx_batches(
        directory, "zstd", args.batch, args.workers), args)
    results["loaderx-raw"] = run("loaderx-raw", loaderx_batches(
        directory, "raw", args.batch, args.workers), args)
    results["torch"] = run("torch", torch_batches(
        directory, args.batch, args.workers), args)

    print(f"{args.records} records of {SIDE}x{SIDE} uint8, batch {args.batch} "
          f"({args.batch * SIDE * SIDE / 2**20:.0f} MiB), {args.workers} workers, "
          f"{os.cpu_count()} cores, torch {torch.__version__}")
    print(f"{'loader':12} {'batches/s':>10} {'vs torch':>9}")
    for name, rate in results.items():
        print(f"{name:12} {rate:>10.1f} {rate / results['torch']:>8.2f}x")
    print(f"peak RSS of the benchmark and its workers: {peak_rss_mib():.0f} MiB")
    shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
