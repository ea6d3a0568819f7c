"""The quick start: the reference design's example, end to end on a local
store. It writes a small image set and its labels as .npy files, copies them
into two DenseStores, then runs the endless DataLoader over both for 256
steps and checks that every batch's images and labels line up.

    bazel run //tools/examples:quickstart_py -- [directory]   (default /tmp/loaderx-quickstart)
"""

import os
import shutil
import sys
import time

import numpy as np

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore


def main(directory):
    os.makedirs(directory, exist_ok=True)
    os.chdir(directory)
    for old in ("train_data", "train_label"):
        shutil.rmtree(old, ignore_errors=True)

    # A small image set: record i is a (3, 32, 32) float32 image filled with
    # i / 1000, and its label is i.
    count = 2000
    images = np.broadcast_to(
        (np.arange(count, dtype=np.float32) / 1000)[:, None, None, None],
        (count, 3, 32, 32))
    np.save("data.npy", np.ascontiguousarray(images))
    np.save("label.npy", np.arange(count, dtype=np.int64))
    print(f"wrote data.npy {images.shape} and label.npy ({count},) in {directory}")

    data = np.load("data.npy", mmap_mode="r")
    label = np.load("label.npy", mmap_mode="r")
    start = time.perf_counter()
    with DenseStore("train_data", data.dtype, data.shape[1:]) as ds:
        ds.append(data)
    with DenseStore("train_label", label.dtype, label.shape[1:]) as ds:
        ds.append(label)
    stats = DenseStore("train_data")
    print(f"stored {len(stats)} records in {time.perf_counter() - start:.2f}s "
          f"(zstd: {stats.stats()['live_bytes'] / data.nbytes:.1%} of "
          f"{data.nbytes / 2**20:.1f} MiB)")
    stats.close()

    loader = DataLoader({"data": DenseStore("train_data"),
                         "label": DenseStore("train_label")},
                        transform=lambda batch: batch)
    start = time.perf_counter()
    for i, batch in enumerate(loader):
        # Every stream is gathered at the same indices.
        if not np.allclose(batch["data"][:, 0, 0, 0], batch["label"] / 1000):
            raise SystemExit(f"step {i}: images and labels do not line up")
        if i >= 256:
            break
    elapsed = time.perf_counter() - start
    loader.close()
    print(batch["data"].shape)
    print(batch["label"].shape)
    print(f"257 batches of {batch['label'].shape[0]} in {elapsed:.2f}s, "
          f"images and labels aligned in every batch")
    print("quickstart: ok")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/loaderx-quickstart")
