"""Data-parallel benchmark: a store set's gather against one store, and
loaderx's rank-sharded loader against torch's DistributedSampler +
DataLoader, per rank at world sizes 1, 2 and 4 on one host.

  set-gather    the same records written as one store and as a set of
                `--members` stores; the same random batches of `--batch`
                set positions gathered from both (validated first: every
                record is the one its position names); ratio set / store
  loader        for each world w in --worlds, w processes run at once, rank
                r of w, each reading its slice of `--batch`-record global
                batches for --steps steps: loaderx's DataLoader (rank,
                world_size) and torch's DistributedSampler (num_replicas=w,
                rank=r, shuffle) + DataLoader (batch_size=batch/w,
                --torch-workers worker processes) over the same records in
                a memory-mapped .npy; per-rank batches/s (the slowest rank)
                and the ratio loaderx / torch

    bazel run -c opt //tools/bench:bench_scale -- [--records 20000]
        [--record-bytes 4096] [--members 16] [--batch 256] [--steps 100]

Prints one JSON line per measurement, then the ratios. The figures mean
something only on a quiet machine; with --quick everything is tiny and only
checks that the benchmark runs.
"""

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from loaderx.dataloader import DataLoader
from loaderx.store_set import StoreSet
from loaderx.zrecord import DenseStore


def records(count, width):
    """Record i: its index in the first 8 bytes, then filler."""
    data = np.random.default_rng(0).integers(0, 255, (count, width), np.uint8)
    data[:, :8] = np.arange(count, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return data


def write_store(path, data):
    with DenseStore(path, np.uint8, data.shape[1:], codec="raw") as store:
        for start in range(0, len(data), 4096):
            store.append(data[start:start + 4096])


def ids(batch):
    return np.ascontiguousarray(batch[:, :8]).view("<u8").reshape(-1)


def set_gather(args, work, data):
    write_store(os.path.join(work, "one"), data)
    bounds = np.linspace(0, len(data), args.members + 1).astype(int)
    members = []
    for m in range(args.members):
        path = os.path.join(work, f"member-{m}")
        write_store(path, data[bounds[m]:bounds[m + 1]])
        members.append(path)
    rng = np.random.default_rng(1)
    batches = [rng.integers(0, len(data), args.batch) for _ in range(args.steps)]
    results = {}
    with DenseStore(os.path.join(work, "one"), read_only=True) as one, \
            StoreSet.create(os.path.join(work, "set.lxset"), members) as whole:
        for name, source in (("store", one), ("set", whole)):
            for batch in batches[:3]:  # Validate.
                assert (ids(source[batch]) == batch).all(), name
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                for batch in batches:
                    source[batch]
                best = min(best, time.perf_counter() - start)
            results[name] = args.steps * args.batch / best
            print(json.dumps({"bench": "set-gather", "source": name,
                              "members": 1 if name == "store" else args.members,
                              "records_per_s": round(results[name])}))
    return results["set"] / results["store"]


def loaderx_rank(path, rank, world, args, out):
    with DenseStore(path, read_only=True) as store, DataLoader(
            {"x": store}, batch_size=args.batch, mode=2, seed=3, rank=rank,
            world_size=world) as loader:
        batch = loader.next()["x"]
        assert len(batch) == args.batch // world
        start = time.perf_counter()
        for _ in range(args.steps):
            loader.next()
        out.put(args.steps / (time.perf_counter() - start))


class NpyRecords:
    """torch's map-style dataset over a memory-mapped .npy: record i as a
    fresh array (what a torch Dataset returns), picklable for workers."""

    def __init__(self, npy):
        self.npy = npy
        self.data = None

    def __len__(self):
        return len(np.load(self.npy, mmap_mode="r"))

    def __getitem__(self, i):
        if self.data is None:
            self.data = np.load(self.npy, mmap_mode="r")
        return np.array(self.data[i])


def torch_rank(npy, rank, world, args, out):
    import torch.utils.data as tud
    import torch.utils.data.distributed  # noqa: F401
    Records = lambda: NpyRecords(npy)  # noqa: E731

    sampler = tud.distributed.DistributedSampler(
        Records(), num_replicas=world, rank=rank, shuffle=True, seed=3)
    loader = tud.DataLoader(Records(), batch_size=args.batch // world,
                            sampler=sampler, num_workers=args.torch_workers)
    it = iter(loader)
    next(it)
    start = time.perf_counter()
    done = 0
    while done < args.steps:
        try:
            next(it)
        except StopIteration:
            sampler.set_epoch(done)
            it = iter(loader)
            continue
        done += 1
    out.put(args.steps / (time.perf_counter() - start))


def loader_worlds(args, work, data):
    path = os.path.join(work, "one")
    if not os.path.exists(path):
        write_store(path, data)
    npy = os.path.join(work, "records.npy")
    np.save(npy, data)
    try:
        import torch  # noqa: F401
        contenders = (("loaderx", loaderx_rank), ("torch", torch_rank))
    except ImportError:
        print("torch is not installed: loaderx only", file=sys.stderr)
        contenders = (("loaderx", loaderx_rank),)
    context = multiprocessing.get_context("spawn")
    ratios = {}
    for world in args.worlds:
        per_rank = {}
        for name, target in contenders:
            out = context.Queue()
            source = npy if name == "torch" else path
            ranks = [context.Process(target=target,
                                     args=(source, r, world, args, out))
                     for r in range(world)]
            for process in ranks:
                process.start()
            rates = [out.get(timeout=600) for _ in ranks]
            for process in ranks:
                process.join()
            per_rank[name] = min(rates)
            print(json.dumps({"bench": "loader", "contender": name,
                              "world": world,
                              "slowest_rank_batches_per_s":
                                  round(per_rank[name], 1)}))
        if "torch" in per_rank:
            ratios[world] = per_rank["loaderx"] / per_rank["torch"]
    return ratios


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--record-bytes", type=int, default=4096)
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worlds", default="1,2,4")
    parser.add_argument("--torch-workers", type=int, default=2)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.records, args.record_bytes, args.steps = 2000, 256, 5
        args.repeats, args.torch_workers = 1, 0
    args.worlds = [int(w) for w in args.worlds.split(",")]
    work = tempfile.mkdtemp(prefix="loaderx-bench-scale-", dir=args.dir)
    try:
        data = records(args.records, args.record_bytes)
        ratio = set_gather(args, work, data)
        print(f"set-gather: {args.members} members / one store = {ratio:.3f}")
        for world, r in loader_worlds(args, work, data).items():
            print(f"loader world {world}: loaderx / torch per rank = {r:.2f}")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
