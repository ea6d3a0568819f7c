"""The score benchmark: every gather workload of the performance table,
with its contenders and its limits measured in the same run on the same
records and the same random index plans, in interleaved rounds.

Workloads (records, batch): dense 64 B / 4 KiB / 256 KiB records, raw and
zstd; ragged CHW uint8 images, raw; and raw appends of 64 B records (each
pass creates a store, appends, and closes it synced, as 1.7.7's close
syncs; the "appends only" rows time the same passes' appends alone).
Contenders, per workload where they apply:

  loaderx store[idx]     the Python binding's batch read (a new array)
  loaderx gather_into    the same native gather into one reused buffer
  loaderx gather(out=)   the same through the public store.gather(idx, out)
  loaderx-1.7.7          the published package, store[idx] on a copy of the
                         same store, in its own venv (tests/oracle/reference.py
                         builds it); reported as missing when it cannot run
  np.take(out=)          an in-RAM array, into a reused buffer
  npy-mmap               np.load(mmap_mode='r')[idx]
  lmdb get+copy          one LMDB value per record, copied out (python3-lmdb)
  limit memcpy/pread     bare loops over the store's own chunk files on the
                         same threads (tools/bench/bare_gather.cc)
  limit zstd decode      bare ZSTD_decompressDCtx of the store's own frames

Contenders that return new arrays (store[idx], npy-mmap, LMDB, 1.7.7) read
the plan as a training loop does, each batch dropped before the next.
Every contender's first batch (for appends: the whole store, read back) is
checked against the source records before timing. A contender that fails
(an error, a crashed subprocess, wrong bytes) gets a FAILED row with the
reason (for a subprocess: its exit and the last line of its stderr) and is
left out of the later rounds; the run goes on to the end and then exits 1.
Each round times every contender once over the whole plan, repeated
until the timing covers `--min-seconds` (each contender's repeat count is
set from a warm pass of its own: 8 batches of 256 KiB records take ~30 ms at
memory speed, a window a stolen core on a shared VM can tilt by a third);
ratios are of the time per plan, taken within a round and reported as
min-max over the rounds and, after a ~, their median, beside each
contender's own min-max rate. Appends repeat passes the same way, each
pass a new store (removed once timed; the check keeps one). Page cache
warm, as in a training loop.

    bazel run --config=opt //tools/bench:bench_score -- [--scale 1]
        [--rounds 5] [--min-seconds 0.25] [--threads 2]
        [--only dense-64B-raw,...] [--dir /tmp]
        [--reference-python PATH | --no-reference]

`--scale` multiplies every record count (bigger data sets); `--quick`
shrinks everything to a smoke test. Needs tools/bench/install_bench_deps.sh
for LMDB; missing contenders are printed as missing, never skipped silently.
"""

import argparse
import hashlib
import json
import itertools
import math
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from loaderx.typed_store import _bytes_of
from loaderx.zrecord import DenseStore, RaggedStore

try:
    import lmdb
except ImportError:  # Reported as missing.
    lmdb = None

# (name, kind, item bytes or None for ragged, batch, records at scale 1, codec)
WORKLOADS = [
    ("dense-64B-raw", "dense", 64, 4096, 65536, "raw"),
    ("dense-64B-zstd", "dense", 64, 4096, 65536, "zstd"),
    ("dense-4KiB-raw", "dense", 4096, 4096, 16384, "raw"),
    ("dense-4KiB-zstd", "dense", 4096, 4096, 16384, "zstd"),
    ("dense-256KiB-raw", "dense", 256 << 10, 256, 800, "raw"),
    ("dense-256KiB-zstd", "dense", 256 << 10, 256, 800, "zstd"),
    ("ragged-CHW-raw", "ragged", None, 256, 1500, "raw"),
    ("append-64B-raw", "append", 64, 4096, 262144, "raw"),
]

# Run by the reference's interpreter: times its store[idx] (or appends)
# over the plan, prints the seconds per round and the first batch's hash.
# The store is closed before the script ends: 1.7.7 crashes (SIGSEGV,
# after its output) in about one exit in six when a zstd store is still
# open at interpreter shutdown, its own stores as well as ours.
REFERENCE_SCRIPT = r"""
import hashlib, json, shutil, sys, time
import numpy as np
from loaderx.zrecord import DenseStore, RaggedStore
mode, path, plan_path, batch, rounds = sys.argv[1:6]
batch, rounds = int(batch), int(rounds)
def digest(got):
    parts = got if isinstance(got, list) else [got]
    h = hashlib.sha256()
    for p in parts: h.update(np.ascontiguousarray(p).tobytes())
    return h.hexdigest()
if mode == "append":  # plan_path is the records' .npy; a store per round.
    data = np.load(plan_path)
    times, appends = [], []
    for r in range(rounds):
        target = f"{path}-{r}"
        start = time.perf_counter()
        store = DenseStore(target, data.dtype, data.shape[1:], codec="raw")
        appending = time.perf_counter()
        for b in range(0, len(data), batch):
            store.append(data[b:b + batch])
        appends.append(time.perf_counter() - appending)
        store.close()
        times.append(time.perf_counter() - start)
        if r + 1 < rounds:  # The last pass's store is checked.
            shutil.rmtree(target)
    with DenseStore(target) as store:
        first = digest(store[np.arange(len(store))])
else:
    plan = np.fromfile(plan_path, dtype="<u8").reshape(-1, batch)
    with (DenseStore if mode == "dense" else RaggedStore)(path) as store:
        first = digest(store[plan[0]])
        for b in plan: store[b]
        times = []
        for r in range(rounds):
            start = time.perf_counter()
            for b in plan: store[b]
            times.append(time.perf_counter() - start)
    appends = []
print(json.dumps({"times": times, "appends": appends, "hash": first}))
"""


def digest(got):
    parts = got if isinstance(got, list) else [got]
    h = hashlib.sha256()
    for part in parts:
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()


def each(read, plan):
    """Reads every batch of `plan`, each dropped before the next is read,
    as a training step consumes its batch (1.7.7's script reads the same
    way): contenders that return new arrays are not made to hold a whole
    plan's batches at once."""
    for p in plan:
        read(p)


def dense_records(count, item_bytes):
    """Image-like bytes (a gradient with 3 bits of noise in every other
    byte): zstd shrinks them about 1.8x, like the reference's data."""
    rng = np.random.default_rng(0)
    ramp = (np.arange(item_bytes) * 3 % 256).astype(np.uint8)
    noise = rng.integers(0, 8, (count, item_bytes), dtype=np.uint8)
    noise[:, ::2] = 0
    return (ramp[None] + (np.arange(count) * 7 % 256).astype(np.uint8)[:, None]) ^ noise


def ragged_records(count):
    """CHW RGB images with lognormal sides (as bench_ragged.py)."""
    rng = np.random.default_rng(0)
    sides = np.clip(rng.lognormal(np.log(160), 0.4, (count, 2)), 32, 384).astype(int)
    out = []
    for i, (h, w) in enumerate(sides):
        base = (np.add.outer(np.arange(h) * 5, np.arange(w) * 3) + i * 7) % 256
        out.append(np.broadcast_to(base.astype(np.uint8), (3, h, w)).copy())
    return out


def reference_python(given):
    """1.7.7's interpreter (`given`, else the cached oracle venv's), or
    (None, why)."""
    if given:
        return given, None
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    try:
        from tests.oracle.reference import reference_python as build
        return build(), None
    except Exception as error:  # Missing venv, no network, no module.
        return None, f"{type(error).__name__}: {error}"


class ContenderFailed(Exception):
    """A contender that ran and failed (a crash, an error, wrong bytes):
    reported as a failure row with the reason, never ending the run."""


def last_line(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(nothing on stderr)"


def exit_description(returncode):
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def run_checked(command, what):
    """Runs a contender's subprocess; its standard output, or
    ContenderFailed naming the exit and the last line of its stderr."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ContenderFailed(f"{what}: {exit_description(done.returncode)}; "
                              f"stderr: {last_line(done.stderr)}")
    return done.stdout


def run_reference(python, *args):
    """REFERENCE_SCRIPT's result (times and hash) in 1.7.7's interpreter."""
    out = run_checked([python, "-I", "-c", REFERENCE_SCRIPT, *map(str, args)],
                      "loaderx 1.7.7's subprocess")
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise ContenderFailed(f"loaderx 1.7.7's subprocess printed no result: "
                              f"{last_line(out)}") from None


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def bare(binary, store, plan_path, batch, mode, threads, repeat):
    """The seconds `repeat` passes of the plan took (after a warm one)."""
    out = run_checked(
        [binary, f"--store={store}", f"--plan={plan_path}", f"--batch={batch}",
         f"--mode={mode}", f"--threads={threads}", f"--repeat={repeat}"],
        f"bare_gather --mode={mode}")
    return sum(float(line) for line in out.split())


def store_digest(path):
    """The digest of every record of the dense store at `path`."""
    store = DenseStore(path)
    try:
        return digest(store[np.arange(len(store))])
    finally:
        store.close()


def run_workload(spec, args, work, reference, bare_binary):
    name, kind, item_bytes, batch, count, codec = spec
    count = max(batch * 2, int(count * args.scale))
    batches = args.batches
    rng = np.random.default_rng(42)
    plan = rng.integers(0, count, (batches, batch)).astype(np.uint64)
    plan_i = plan.astype(np.intp)  # numpy's index type, for its contenders.
    plan_path = os.path.join(work, f"{name}.plan")
    plan.astype("<u8").tofile(plan_path)
    missing = {}  # name -> why it could not run
    contenders = {}  # name -> callable doing the whole plan, in this process
    # name -> callable(repeat) timing `repeat` passes of the whole plan in a
    # subprocess, returning their seconds.
    external = {}
    checks = {}  # name -> callable returning the digest of what it produced
    path = os.path.join(work, name)

    if kind == "append":
        data = dense_records(count, item_bytes)
        data_path = os.path.join(work, f"{name}.npy")
        np.save(data_path, data)
        passes = itertools.count()  # A fresh store for every pass.
        def ours_append(repeat=1, keep=False):
            """`repeat` passes, each a fresh store: create, append, close
            (synced, as 1.7.7's close is). Returns the last pass's store
            (removed unless `keep`) and the passes' seconds, whole and
            appends only, summed."""
            seconds = {"pass": 0.0, "appends": 0.0}
            for done in range(repeat):
                target = f"{path}-ours-{next(passes)}"
                start = time.perf_counter()
                store = DenseStore(target, data.dtype, data.shape[1:],
                                   codec="raw")
                appending = time.perf_counter()
                for b in range(0, count, batch):
                    store.append(data[b:b + batch])
                appended = time.perf_counter()
                store.close()
                seconds["pass"] += time.perf_counter() - start
                seconds["appends"] += appended - appending
                if not (keep and done + 1 == repeat):
                    shutil.rmtree(target)
            return target, seconds
        # The whole pass, and its appends alone (creation and the closing
        # sync left out: their fsyncs, not the append path, differ most).
        # A pass takes tens of milliseconds: each timing repeats passes to
        # cover `min_seconds`, as the gathers repeat their plans.
        external["loaderx append"] = lambda repeat: ours_append(repeat)[1]["pass"]
        external["loaderx appends only"] = (
            lambda repeat: ours_append(repeat)[1]["appends"])
        checks["loaderx append"] = (
            lambda: store_digest(ours_append(keep=True)[0]))
        if reference[0] is not None:
            def reference_append(repeat=1):
                return run_reference(reference[0], "append",
                                     f"{path}-ref-{next(passes)}", data_path,
                                     batch, repeat)
            external["loaderx-1.7.7 append"] = (
                lambda repeat: sum(reference_append(repeat)["times"]))
            external["loaderx-1.7.7 appends only"] = (
                lambda repeat: sum(reference_append(repeat)["appends"]))
            checks["loaderx-1.7.7 append"] = lambda: reference_append()["hash"]
        else:
            missing["loaderx-1.7.7 append"] = reference[1]
        return measure(name, contenders, external, checks, digest(data), missing,
                       args, args.min_seconds, data.nbytes, count,
                       f"{count} records of "
                       f"64 B appended {batch} at a time")

    if kind == "dense":
        data = dense_records(count, item_bytes)
        store = DenseStore(path, np.uint8, (item_bytes,), codec=codec)
        for b in range(0, count, 4096):
            store.append(data[b:b + 4096])
        store.close(sync=False)
        store = DenseStore(path)
        expected = [data[p] for p in plan]
    else:
        records = ragged_records(count)
        store = RaggedStore(path, np.uint8, codec=codec)
        for b in range(0, count, 256):
            store.append(records[b:b + 256])
        store.close(sync=False)
        store = RaggedStore(path)
        expected = [[records[i] for i in p] for p in plan]
    logical = sum(sum(r.nbytes for r in e) if isinstance(e, list) else e.nbytes
                  for e in expected)
    contenders["loaderx store[idx]"] = lambda: each(store.__getitem__, plan)
    checks["loaderx store[idx]"] = lambda: store[plan[0]]
    if kind == "dense":
        reused = np.empty((batch, item_bytes), np.uint8)
        def gather_into():
            for p in plan:
                store._native.gather_into(p, _bytes_of(reused))
        def gather_first():
            store._native.gather_into(plan[0], _bytes_of(reused))
            return reused
        contenders["loaderx gather_into"] = gather_into
        checks["loaderx gather_into"] = gather_first
        # The public form of the same gather: store.gather(indices, out).
        public_out = np.empty((batch, item_bytes), np.uint8)
        contenders["loaderx gather(out=)"] = lambda: [
            store.gather(p, public_out) for p in plan]
        checks["loaderx gather(out=)"] = lambda: store.gather(plan[0],
                                                              public_out)
        taken = np.empty((batch, item_bytes), np.uint8)
        contenders["np.take(out=)"] = lambda: [
            np.take(data, p, axis=0, out=taken, mode="clip") for p in plan_i]
        checks["np.take(out=)"] = lambda: np.take(data, plan_i[0], axis=0)
        np.save(path + ".npy", data)
        mapped = np.load(path + ".npy", mmap_mode="r")
        contenders["npy-mmap"] = lambda: each(mapped.__getitem__, plan_i)
        checks["npy-mmap"] = lambda: mapped[plan_i[0]]
    if lmdb is None:
        missing["lmdb get+copy"] = "python lmdb is not installed"
    else:
        env = lmdb.open(path + ".lmdb", map_size=(logical // batches + 1) * 4
                        * count // batch + (1 << 30), sync=False,
                        metasync=False, readahead=False)
        source = data if kind == "dense" else records
        with env.begin(write=True) as txn:
            for i in range(count):
                txn.put(i.to_bytes(8, "big"), source[i].tobytes())
        shapes = None if kind == "dense" else [r.shape for r in records]
        def lmdb_batch(p):
            with env.begin(buffers=True) as txn:
                if kind == "dense":
                    out = np.empty((batch, item_bytes), np.uint8)
                    for slot, i in enumerate(p):
                        out[slot] = np.frombuffer(txn.get(int(i).to_bytes(8, "big")),
                                                  np.uint8)
                    return out
                return [np.frombuffer(txn.get(int(i).to_bytes(8, "big")),
                                      np.uint8).reshape(shapes[i]).copy()
                        for i in p]
        contenders["lmdb get+copy"] = lambda: each(lmdb_batch, plan_i)
        checks["lmdb get+copy"] = lambda: lmdb_batch(plan_i[0])
    checks = {contender: (lambda first=first: digest(first()))
              for contender, first in checks.items()}
    # Limits over the store's own files; ragged payloads are the even
    # physical records.
    physical = plan if kind == "dense" else plan * 2
    physical_path = plan_path + ".physical"
    physical.astype("<u8").tofile(physical_path)
    for mode in (["memcpy", "pread"] if codec == "raw" else ["zstd"]):
        external[f"limit {mode}"] = (
            lambda repeat, mode=mode: bare(bare_binary, path, physical_path,
                                           batch, mode, args.threads, repeat))
    if reference[0] is not None:
        copy = path + "-1.7.7"
        shutil.copytree(path, copy)
        command = (kind, copy, plan_path, batch)
        checks["loaderx-1.7.7"] = (
            lambda: run_reference(reference[0], *command, 1)["hash"])
        external["loaderx-1.7.7"] = (  # Its script times `repeat` passes.
            lambda repeat: sum(run_reference(reference[0], *command,
                                             repeat)["times"]))
    else:
        missing["loaderx-1.7.7"] = reference[1]
    item = (f"{item_bytes} B" if item_bytes else "CHW uint8 images")
    return measure(name, contenders, external, checks, digest(expected[0]),
                   missing, args, args.min_seconds, logical, batches * batch,
                   f"{count} records of {item}, {codec}, batch {batch}, "
                   f"{batches} batches")


def measure(name, contenders, external, checks, want, missing, args,
            min_seconds, logical, records, title):
    """Checks, warms and times every contender; prints the workload's table
    and returns its rows. Each timing repeats the plan as often as a warm
    pass of the contender's says it takes to cover `min_seconds`;
    the seconds kept are per plan. A contender that fails (raises, crashes,
    or produces bytes whose digest is not `want`) gets a failure row and is
    left out of the later rounds and of the ratio columns."""
    failed = {}

    def attempt(contender, run):
        try:
            return run()
        except ContenderFailed as error:
            failed[contender] = str(error)
        except Exception as error:  # An in-process contender's own error.
            failed[contender] = f"{type(error).__name__}: {last_line(str(error))}"
        return None

    for contender, check in checks.items():
        got = attempt(contender, check)
        if got is not None and got != want:
            failed[contender] = "wrong bytes (not the source records)"
    repeats = {}  # contender -> passes of the plan per timing
    def repeats_for(contender, time_one_pass):
        """Passes per timing, from one timed warm pass (none is run when
        `min_seconds` asks for no repeats)."""
        if min_seconds <= 0:
            return 1
        took = attempt(contender, time_one_pass)
        return 1 if not took or took <= 0 else math.ceil(min_seconds / took)
    for contender, run in contenders.items():  # Warm every contender once.
        if contender not in failed:
            attempt(contender, run)
            repeats[contender] = repeats_for(contender, lambda: timed(run))
    for contender, run in external.items():  # Its own process warms it.
        if contender not in failed:
            repeats[contender] = repeats_for(contender, lambda: run(1))
    seconds = {c: [] for c in list(contenders) + list(external)}
    for round_number in range(args.rounds):
        # A new order every round: whoever runs first after the external
        # limits (processes of their own) meets colder caches, so a fixed
        # order would tilt the ratios.
        order = list(seconds)
        random.Random(round_number).shuffle(order)
        for contender in order:
            if contender in failed:
                continue
            run, repeat = contenders.get(contender), repeats[contender]
            def passes():
                for _ in range(repeat):
                    run()
            took = attempt(contender, (lambda: timed(passes)) if run
                           else lambda: external[contender](repeat))
            if took is not None:
                seconds[contender].append(took / repeat)
    seconds = {c: t for c, t in seconds.items() if c not in failed}
    shortest = min((times[0] * repeats[c] for c, times in seconds.items()
                    if times), default=0.0)
    print(f"\n## {name}: {title}; {args.rounds} rounds, {args.threads} "
          f"threads, each timing >= {shortest:.2f} s")
    # `gather_into`'s column is the bar for `store[idx]` (a new array per
    # batch within 10 % of a reused one).
    columns = [c for c in ("loaderx gather_into", "np.take(out=)", "npy-mmap",
                           "lmdb get+copy",
                           "loaderx-1.7.7", "loaderx-1.7.7 append",
                           "loaderx-1.7.7 appends only",
                           "limit memcpy", "limit pread", "limit zstd")
               if c in seconds]
    header = f"{'contender':27} {'M rec/s':>15} {'GiB/s':>13}"
    for c in columns:
        header += f" {'vs ' + c:>24}"
    print(header)
    rows = {}
    for contender, times in seconds.items():
        rates = [records / t / 1e6 for t in times]
        gib = [logical / t / 2**30 for t in times]
        line = (f"{contender:27} {min(rates):>7.3f}-{max(rates):<7.3f}"
                f" {min(gib):>6.2f}-{max(gib):<6.2f}")
        for c in columns:
            ratios = [o / t for t, o in zip(times, seconds[c])]
            cell = (f"{min(ratios):.2f}-{max(ratios):.2f}"
                    f" ~{statistics.median(ratios):.2f}x")
            line += f" {cell:>24}"
        print(line)
        rows[contender] = {"seconds": times}
    for contender, why in failed.items():
        print(f"{contender:27} FAILED: {why}")
        rows[contender] = {"failed": why}
    for contender, why in missing.items():
        print(f"{contender:27} missing: {why}")
        rows[contender] = {"missing": str(why)}
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--min-seconds", type=float, default=0.25,
                        help="the least time a contender's timing covers: "
                        "its plan (gathers) or its passes (appends) are "
                        "repeated that long")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", default="")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--bare-gather", default="")
    parser.add_argument("--reference-python", default="",
                        help="an interpreter that imports loaderx 1.7.7 "
                        "(default: tests/oracle/reference.py's venv)")
    parser.add_argument("--no-reference", action="store_true",
                        help="report loaderx 1.7.7 as missing without trying")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, 1 round: a smoke test")
    args = parser.parse_args()
    if args.quick:
        args.scale, args.rounds, args.batches = 0.01, 1, 2
        args.min_seconds = 0.0
    bare_binary = args.bare_gather or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "bare_gather")
    reference = ((None, "not tried (--no-reference)") if args.no_reference
                 else reference_python(args.reference_python))
    work = tempfile.mkdtemp(prefix="loaderx_bench_score_", dir=args.dir)
    try:
        results = {}
        for spec in WORKLOADS:
            if args.only and spec[0] not in args.only.split(","):
                continue
            results[spec[0]] = run_workload(spec, args, work, reference,
                                            bare_binary)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failures = [f"{workload}: {contender}"
                for workload, rows in results.items()
                for contender, row in rows.items() if "failed" in row]
    if failures:
        print(f"\n{len(failures)} contender(s) failed: {'; '.join(failures)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
