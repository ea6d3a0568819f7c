"""What a second thread buys a gather of small records: `gather_into` on
one read-only handle opened under `set_num_threads(1)` and one opened under
`set_num_threads(N)`, the same batches, alternated in one process with
`np.take(out=)` of the same plan on an in-RAM array, so all three meet the
same machine. Every contender's batches are checked against the source
records before timing. Prints each contender's median rate and, per round,
the N-thread time over the 1-thread one (the scaling) and the ratio to
np.take, as min-max with the median.

    bazel run --config=opt //tools/bench:bench_thread_scaling -- \
        [--records 65536] [--record-bytes 64] [--batch 4096] [--batches 8] \
        [--threads 2] [--rounds 15] [--min-seconds 0.1] [--dir /tmp]

A store keeps the pool it was opened with, which is why each thread count
has a handle of its own.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import loaderx
from loaderx.typed_store import _bytes_of
from loaderx.zrecord import DenseStore


def spread(values):
    return (f"{min(values):.2f}-{max(values):.2f}"
            f" ~{statistics.median(values):.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=65536)
    parser.add_argument("--record-bytes", type=int, default=64)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--min-seconds", type=float, default=0.1,
                        help="the least time each timing covers")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="loaderx_thread_scaling_", dir=args.dir)
    try:
        path = os.path.join(work, "store")
        data = np.random.default_rng(1).integers(
            0, 256, (args.records, args.record_bytes), dtype=np.uint8)
        with DenseStore(path, np.uint8, (args.record_bytes,),
                        codec="raw") as store:
            for b in range(0, args.records, 4096):
                store.append(data[b:b + 4096])
        handles = {}
        for threads in (1, args.threads):
            loaderx.set_num_threads(threads)
            handles[threads] = DenseStore(path, read_only=True)
        rng = np.random.default_rng(2)
        plan = [rng.integers(0, args.records, args.batch).astype(np.uint64)
                for _ in range(args.batches)]
        plan_i = [p.astype(np.intp) for p in plan]
        out = np.empty((args.batch, args.record_bytes), np.uint8)
        taken = np.empty_like(out)

        def gather(threads):
            native = handles[threads]._native
            for p in plan:
                native.gather_into(p, _bytes_of(out))

        def take():
            for p in plan_i:
                np.take(data, p, axis=0, out=taken, mode="clip")

        for p, pi in zip(plan, plan_i):  # Every batch checked before timing.
            for threads in handles:
                handles[threads]._native.gather_into(p, _bytes_of(out))
                if not np.array_equal(out, data[pi]):
                    raise SystemExit(f"{threads} threads: wrong bytes")
            np.take(data, pi, axis=0, out=taken, mode="clip")
            if not np.array_equal(taken, data[pi]):
                raise SystemExit("np.take: wrong bytes")
        contenders = {"gather_into, 1 thread": lambda: gather(1),
                      f"gather_into, {args.threads} threads":
                          lambda: gather(args.threads),
                      "np.take(out=)": take}
        repeats = {}
        for name, run in contenders.items():  # Warm, and size the timing.
            start = time.perf_counter()
            run()
            took = time.perf_counter() - start
            repeats[name] = max(1, int(args.min_seconds / max(took, 1e-9)))
        seconds = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, run in contenders.items():
                start = time.perf_counter()
                for _ in range(repeats[name]):
                    run()
                seconds[name].append((time.perf_counter() - start) /
                                     repeats[name])
        records = args.batch * args.batches
        print(f"{args.records} records of {args.record_bytes} B, batch "
              f"{args.batch}, {args.rounds} rounds")
        for name, times in seconds.items():
            rate = records / statistics.median(times) / 1e6
            print(f"{name:28} {rate:8.1f} M rec/s (median)")
        one, many, numpy_take = seconds.values()
        print(f"{args.threads} threads over 1: "
              f"{spread([a / b for a, b in zip(one, many)])}")
        print(f"{args.threads} threads against np.take: "
              f"{spread([t / m for t, m in zip(numpy_take, many)])}")
        print(f"1 thread against np.take: "
              f"{spread([t / o for t, o in zip(numpy_take, one)])}")
        for handle in handles.values():
            handle.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
