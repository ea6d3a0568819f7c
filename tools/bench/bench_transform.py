"""The loader with a Python per-sample transform, on the interpreter that
runs this: batches per second for a CPU-heavy pure-Python transform and for
the identity, with `--workers` transform threads (or, with `--torch`,
torch's DataLoader with that many worker processes doing the same work).

    python bench_transform.py --store DIR [--records N] [--steps S] [--workers W] [--torch]

Prints one JSON line: interpreter, whether the GIL is on, and per transform
the batches per second (median of `--repeats` runs). Every batch is
checked (its rows are the sampler's indices) before any run is timed.
`tools/bench/bench_transform.sh` runs it on CPython 3.13 (GIL) and
free-threaded 3.13t side by side, and torch's workers on Debian's 3.11,
and prints the ratios.
"""

import argparse
import json
import os
import statistics
import sys
import sysconfig
import time

import numpy as np

from loaderx.dataloader import DataLoader
from loaderx.zrecord import DenseStore
from loaderx.zsampler import Sampler

_WIDTH = 64  # float32 values per record


def heavy(batch):
    """CPU-heavy and pure Python: per sample, a few thousand float
    operations on a Python list (no numpy call, which would release the
    GIL and hide the difference)."""
    out = []
    for row in batch["data"]:
        values = row.tolist()
        total = 0.0
        for _ in range(40):
            for v in values:
                total += v * 1.000001 - (v * v) * 1e-9
        out.append(total)
    batch["feature"] = out
    return batch


def identity(batch):
    return batch


TRANSFORMS = {"heavy": heavy, "identity": identity}


def make_store(path, records):
    if os.path.exists(os.path.join(path, "store.zr")):
        return
    rows = np.arange(records, dtype=np.float32)[:, None] + np.zeros(
        (1, _WIDTH), np.float32)
    with DenseStore(path, np.float32, (_WIDTH,), codec="raw") as store:
        store.append(rows)


def check(path, batch_size, workers):
    """Batches carry the sampler's indices, transformed: before timing."""
    store = DenseStore(path, read_only=True)
    sampler = Sampler(len(store), batch_size, Sampler.Mode.CYCLIC, 42)
    with DataLoader({"data": store}, num_workers=workers,
                    batch_size=batch_size, transform=heavy) as loader:
        for _ in range(4):
            batch = next(loader)
            np.testing.assert_array_equal(batch["data"][:, 0], sampler.next())
            assert len(batch["feature"]) == batch_size
    store.close()


def run_loader(path, transform, steps, batch_size, workers):
    store = DenseStore(path, read_only=True)
    with DataLoader({"data": store}, num_workers=workers,
                    batch_size=batch_size, transform=transform) as loader:
        next(loader)  # Threads started, first gathers done.
        start = time.perf_counter()
        for _ in range(steps):
            next(loader)
        elapsed = time.perf_counter() - start
    store.close()
    return steps / elapsed


class _Steps:
    """torch Dataset: item i is step i's batch, gathered and transformed in
    the worker process."""

    def __init__(self, path, batch_size, transform):
        self.path, self.batch_size, self.transform = path, batch_size, transform
        self.store = None

    def __len__(self):
        return 1 << 30

    def __getitem__(self, step):
        if self.store is None:
            self.store = DenseStore(self.path, read_only=True)
            self.sampler = Sampler(len(self.store), self.batch_size,
                                   Sampler.Mode.CYCLIC, 42)
        indices = self.sampler.batch(step)
        return self.transform({"data": self.store[indices]})


def run_torch(path, transform, steps, batch_size, workers):
    import torch.utils.data
    loader = torch.utils.data.DataLoader(
        _Steps(path, batch_size, transform), batch_size=None,
        num_workers=workers, prefetch_factor=4, persistent_workers=False)
    iterator = iter(loader)
    next(iterator)
    start = time.perf_counter()
    for _ in range(steps):
        next(iterator)
    elapsed = time.perf_counter() - start
    del iterator
    return steps / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--records", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--torch", action="store_true")
    args = parser.parse_args()
    make_store(args.store, args.records)
    check(args.store, args.batch_size, args.workers)
    run = run_torch if args.torch else run_loader
    result = {
        "python": sys.version.split()[0]
        + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""),
        "gil": getattr(sys, "_is_gil_enabled", lambda: True)(),
        "runner": f"torch-{args.workers}-processes" if args.torch
        else f"loaderx-{args.workers}-threads",
    }
    for name, transform in TRANSFORMS.items():
        rates = [run(args.store, transform, args.steps, args.batch_size,
                     args.workers) for _ in range(args.repeats)]
        result[name] = round(statistics.median(rates), 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
