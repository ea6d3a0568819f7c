"""Loader benchmark: batches/s and peak RSS of loaderx's DataLoader in C++,
Python and Java over the same raw and zstd stores, side by side with
torch's DataLoader over the same records.

The reference design's loader table: fixed-shape records (512x512 uint8,
256 KiB, by default) with int64 labels, batch 256, 4 workers.

  cxx-raw / cxx-zstd         the C++ `DataLoader` (loader_throughput.cc)
  python-raw / python-zstd   `loaderx.dataloader.DataLoader`, identity
                             transform: arrays are views of the native
                             batches
  java-raw / java-zstd       `org.loaderx.DataLoader` (LoaderThroughput.java,
                             run with loaderx.jar in a JVM of its own), the
                             consumer taking each batch's direct buffers
  torch                      torch.utils.data.DataLoader, `--workers`
                             worker processes, over the same records as an
                             np.load(mmap_mode='r') array, shuffled

The data set is written once; every contender then runs in a process of its
own (so each peak RSS is that contender's; torch's line adds its largest
worker process), validates `--validate` batches (every image is the record
its label names; loaderx's labels are the indices its sampler drew, and
its arrays are views, not copies), runs `--warmup` batches and is timed over
`--batches`, the consumer dropping each batch. Ratios: each loaderx
contender against the C++ loader over the same codec, and every contender
against torch.

The C++ and Java programs are run as `CMD --image=DIR --label=DIR
--batch=N --prefetch=N --batches=N --warmup=N --validate=N`; each validates
as described and prints one JSON line ({"batches_per_s": ...,
"peak_rss_mib": ...}). Java's is `java -cp loaderx.jar:loader_throughput.jar
LoaderThroughput` from Bazel's build (`--java-command` replaces it, e.g. to
pass JVM flags); without the jars beside this file (run outside Bazel) it is
left out with a note.

    bash tools/bench/install_bench_deps.sh    # torch, from Debian
    bazel run --config=opt //tools/bench:bench_loader -- [--records 1000]
        [--record-kib 256] [--batch 256] [--batches 40] [--dir /tmp]

Options for a quick check: --contenders cxx,python (torch skipped), tiny
sizes. Nothing here is a speed test: the figures are only meaningful on a
quiet machine.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

ALL_CONTENDERS = ("cxx", "python", "java", "torch")


def make_records(count, record_bytes, seed=0):
    """Image-like records (a gradient with light noise), each stamped with
    its index in its first 8 bytes."""
    rng = np.random.default_rng(seed)
    base = (np.arange(record_bytes) % 251).astype(np.uint8)
    images = np.empty((count, record_bytes), dtype=np.uint8)
    for i in range(count):
        images[i] = base ^ rng.integers(0, 8, record_bytes, dtype=np.uint8)
        images[i, :8] = np.frombuffer(np.int64(i).tobytes(), np.uint8)
    return images


def stamps(images):
    """The index stamped into each image of a batch."""
    flat = np.ascontiguousarray(images).reshape(len(images), -1)[:, :8]
    return flat.copy().view(np.int64).reshape(-1)


def image_shape(record_bytes):
    """512x512 for 256 KiB; a flat record otherwise."""
    side = int(round(record_bytes ** 0.5))
    return (side, side) if side * side == record_bytes else (record_bytes,)


def write_data(directory, records, record_kib):
    from loaderx.zrecord import DenseStore

    record_bytes = record_kib << 10
    images = make_records(records, record_bytes).reshape(
        records, *image_shape(record_bytes))
    labels = np.arange(records, dtype=np.int64)
    np.save(f"{directory}/images.npy", images)
    for codec in ("raw", "zstd"):
        with DenseStore(f"{directory}/{codec}_image", images.dtype,
                        images.shape[1:], codec=codec) as store:
            for start in range(0, records, 64):
                store.append(images[start:start + 64])
        with DenseStore(f"{directory}/{codec}_label", labels.dtype, (),
                        codec=codec) as store:
            store.append(labels)


# ---------------------------------------------------------------------------
# Contenders, each run in its own process (`--run NAME`).

def timed(batches, args, check):
    """Validates, warms up and times `batches` (an iterator of (images,
    labels)); returns batches/s."""
    for _ in range(args.validate):
        check(*next(batches))
    for _ in range(args.warmup):
        next(batches)
    start = time.perf_counter()
    for _ in range(args.batches):
        next(batches)
    return args.batches / (time.perf_counter() - start)


def check_stamps(images, labels, batch):
    assert len(images) == len(labels) == batch, (len(images), len(labels))
    assert (stamps(images) == labels).all(), "images and labels differ"


def run_python(args, codec):
    from loaderx import loaderx_native
    from loaderx.dataloader import DataLoader
    from loaderx.zrecord import DenseStore
    from loaderx.zsampler import Sampler

    streams = {"image": DenseStore(f"{args.dir}/{codec}_image"),
               "label": DenseStore(f"{args.dir}/{codec}_label")}
    loader = DataLoader(streams, num_workers=args.workers,
                        batch_size=args.batch, prefetch_size=args.prefetch)
    sampler = Sampler(args.records, args.batch, 2, 42)

    def batches():
        while True:  # Holding nothing while the next batch comes, as C++.
            batch = next(loader)
            images, labels = batch["image"], batch["label"]
            del batch
            yield images, labels
            del images, labels

    def check(images, labels):
        check_stamps(images, labels, args.batch)
        assert labels.tolist() == sampler.next().tolist(), "not the sampler's"
        assert isinstance(images.base, loaderx_native.BatchBuffer), "a copy"

    try:
        return timed(batches(), args, check)
    finally:
        loader.close()


def run_torch(args, worker_rss):
    """torch's loader; appends each worker process's peak RSS to
    `worker_rss`."""
    import torch
    import torch.utils.data

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

    loader = torch.utils.data.DataLoader(
        MmapImages(f"{args.dir}/images.npy"), batch_size=args.batch,
        shuffle=True, drop_last=True, num_workers=args.workers,
        persistent_workers=True, prefetch_factor=2)

    def batches():
        while True:  # Epochs, one after another.
            for images, labels in loader:
                yield images.numpy(), labels.numpy()
                del images, labels

    iterator = batches()
    try:
        rate = timed(iterator, args,
                     lambda i, l: check_stamps(i, l, args.batch))
        # A fork's peak starts at its RSS when forked (shared pages count).
        for worker in getattr(loader._iterator, "_workers", []):
            rss = peak_rss_mib(worker.pid)
            if rss is not None:
                worker_rss.append(rss)
        return rate
    finally:
        iterator.close()
        del loader  # Joins the worker processes.


def peak_rss_mib(pid="self"):
    """A process's peak RSS since its exec (VmHWM: unlike ru_maxrss, not
    inherited from the process that forked it), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    if pid == "self":  # No /proc: the kernel's own counter.
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return None


def contender_main(args):
    name = args.run
    workers = []
    if name == "torch":
        rate = run_torch(args, workers)
    else:
        rate = run_python(args, name.split("-", 1)[1])
    print(json.dumps({"batches_per_s": rate, "peak_rss_mib": peak_rss_mib(),
                      "worker_peak_rss_mib": max(workers, default=0)}))


# ---------------------------------------------------------------------------
# The driver.

def common_flags(args):
    return [f"--batch={args.batch}", f"--prefetch={args.prefetch}",
            f"--batches={args.batches}", f"--warmup={args.warmup}",
            f"--validate={args.validate}"]


def native_command(program, args, codec):
    return program + [f"--image={args.dir}/{codec}_image",
                      f"--label={args.dir}/{codec}_label"] + common_flags(args)


def python_command(args, name):
    return [sys.executable, os.path.abspath(__file__), "--run", name,
            "--dir", args.dir, "--records", str(args.records),
            "--batch", str(args.batch), "--prefetch", str(args.prefetch),
            "--workers", str(args.workers), "--batches", str(args.batches),
            "--warmup", str(args.warmup), "--validate", str(args.validate)]


def cxx_program(args):
    if args.cxx_binary:
        return [args.cxx_binary]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "loader_throughput")]


def java_command(args):
    """The Java contender's command, or None if its jars are not built."""
    if args.java_command:
        return args.java_command.split()
    here = os.path.dirname(os.path.abspath(__file__))
    jars = [os.path.join(here, "..", "..", "swig", "loaderx.jar"),
            os.path.join(here, "loader_throughput.jar")]
    if not all(os.path.exists(jar) for jar in jars):
        return None
    java = shutil.which("java")
    if java is None:
        raise SystemExit("java: not on PATH (tools/ci/install_deps.sh installs the JDK)")
    return [java, "-cp", ":".join(map(os.path.normpath, jars)), "LoaderThroughput"]


def plan(args):
    """(name, command) for every contender to run, and notes on those left
    out."""
    wanted = args.contenders.split(",")
    unknown = set(wanted) - set(ALL_CONTENDERS)
    if unknown:
        raise SystemExit(f"unknown contenders {sorted(unknown)}; "
                         f"choose from {','.join(ALL_CONTENDERS)}")
    runs, notes = [], []
    java = java_command(args) if "java" in wanted else None
    for codec in ("raw", "zstd"):
        if "cxx" in wanted:
            runs.append((f"cxx-{codec}",
                         native_command(cxx_program(args), args, codec)))
        if "python" in wanted:
            runs.append((f"python-{codec}", python_command(args, f"python-{codec}")))
        if "java" in wanted:
            if java:
                runs.append((f"java-{codec}", native_command(java, args, codec)))
            elif codec == "raw":
                notes.append("java: not run (loaderx.jar and loader_throughput.jar "
                             "are not beside this file: run it with bazel run)")
    if "torch" in wanted:
        try:
            import torch  # noqa: F401
            runs.append(("torch", python_command(args, "torch")))
        except ImportError:
            notes.append("torch: not installed (bash tools/bench/install_bench_deps.sh)")
    return runs, notes


def measure(name, command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed (exit {done.returncode}):\n"
                         f"{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(results, notes, args):
    batch_mib = args.batch * (args.record_kib << 10) / 2**20
    print(f"{args.records} records of {args.record_kib} KiB, batch {args.batch} "
          f"({batch_mib:.0f} MiB), prefetch {args.prefetch}, {args.workers} "
          f"torch workers / Python transform threads, {os.cpu_count()} cores")
    print(f"{'loader':12} {'batches/s':>10} {'MiB/s':>8} {'peak RSS MiB':>13} "
          f"{'vs C++':>7} {'vs torch':>9}")
    torch_rate = results.get("torch", {}).get("batches_per_s")
    for name, result in results.items():
        rate = result["batches_per_s"]
        rss = f"{result['peak_rss_mib']:.0f}"
        if result.get("worker_peak_rss_mib"):
            rss += f" +{result['worker_peak_rss_mib']:.0f}/worker"
        codec = name.rsplit("-", 1)[-1]
        cxx = results.get(f"cxx-{codec}", {}).get("batches_per_s")
        vs_cxx = f"{rate / cxx:.3f}" if cxx and name != "torch" else "-"
        vs_torch = f"{rate / torch_rate:.2f}x" if torch_rate else "-"
        print(f"{name:12} {rate:>10.2f} {rate * batch_mib:>8.0f} {rss:>13} "
              f"{vs_cxx:>7} {vs_torch:>9}")
    for codec in ("raw", "zstd"):
        cxx = results.get(f"cxx-{codec}")
        for language in ("python", "java"):
            other = results.get(f"{language}-{codec}")
            if cxx and other:
                print(f"{language}/C++ ({codec}): "
                      f"{other['batches_per_s'] / cxx['batches_per_s']:.3f}")
    for note in notes:
        print(note)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--record-kib", type=int, default=256)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--prefetch", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--validate", type=int, default=3)
    parser.add_argument("--dir", default=os.environ.get("TEST_TMPDIR", "/tmp"))
    parser.add_argument("--contenders", default=",".join(ALL_CONTENDERS),
                        help="a comma-separated subset of "
                             f"{','.join(ALL_CONTENDERS)}")
    parser.add_argument("--cxx-binary", default="",
                        help="loader_throughput (default: beside this file)")
    parser.add_argument("--java-command", default="",
                        help="the Java contender's command (default: "
                             "java -cp loaderx.jar:loader_throughput.jar "
                             "LoaderThroughput, from Bazel's build)")
    parser.add_argument("--run", default="", help=argparse.SUPPRESS)
    return parser.parse_args()


def main():
    args = parse_args()
    if args.run:  # One contender, in this process.
        contender_main(args)
        return
    if min(args.records, args.record_kib, args.batch, args.batches,
           args.prefetch, args.workers) < 1 or args.validate < 1:
        raise SystemExit("sizes and counts must be positive")
    args.dir = os.path.join(os.path.abspath(args.dir), "loaderx_bench_loader")
    shutil.rmtree(args.dir, ignore_errors=True)
    os.makedirs(args.dir)
    try:
        write_data(args.dir, args.records, args.record_kib)
        runs, notes = plan(args)
        results = {name: measure(name, command) for name, command in runs}
        report(results, notes, args)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
