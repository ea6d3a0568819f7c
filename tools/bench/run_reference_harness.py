#!/usr/bin/env python3
"""loaderx 1.7.7's own benchmark harness, run as published, on 1.7.7 and on us.

The harness (`scripts/bench_dense.py`, `bench_ragged.py`, `bench.py` and
`_bench_common.py`) ships in 1.7.7's source distribution. This script
downloads that distribution with pip into the cache (it is never copied
into this repository), and runs each chosen section of the harness several
times, alternating two packages importable as `loaderx`:

  1.7.7  the published binary wheel, installed with `pip --target`
  ours   this checkout's package, built optimised (`bazel build
         --config=opt //swig:python`) and staged as a plain `loaderx`
         directory; no shim is needed, since the harness uses only 1.7.7's
         public API (`loaderx.zrecord`, `.zsampler`, `.dataloader`, `.utils`)

Both run in one cached benchmark venv (`$LOADERX_CACHE/bench-harness`,
default /var/tmp/loaderx-cache) made from Debian's Python 3 with its
system packages (numpy, torch) and the harness's other contenders from
PyPI: h5py, lmdb, pyarrow, array-record, tiledb, grain (numpy kept below 2
for Debian's torch). A contender that
cannot be installed or imported is listed as such at the top of the
report and left out of `--only`, never silently.

Each section's table is printed as the harness prints it, every cell the
median over the repetitions, with added columns: ours / 1.7.7 (for the
rows both packages produce) and ours / the best other contender of the
same kind (raw or compressed: a name with zstd, gzip or zstdict is
compressed; the loaders against every other loader), each as min-median-max over the repetitions (ratios of the
same repetition). Sizes are the harness's defaults scaled by `--scale`
(records and batches; the shapes are kept).

  run_reference_harness.py [--sections dense,ragged,loader,sampler]
                           [--repeat 3] [--scale 1.0] [--no-build]
"""

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CACHE = os.path.join(os.environ.get("LOADERX_CACHE", "/var/tmp/loaderx-cache"),
                     "bench-harness")
REFERENCE = "loaderx==1.7.7"
# pip requirement -> the module the harness imports to decide it is usable.
# torch is Debian's (python3-torch, through the venv's system packages),
# built against numpy 1.x: every install keeps numpy below 2, and pyarrow
# releases from 19 on refuse numpy 1.x at import (not in their metadata).
NUMPY_PIN = "numpy<2"
CONTENDERS = {
    "h5py": "h5py",
    "lmdb": "lmdb",
    "pyarrow<19": "pyarrow",
    "array-record": "array_record.python.array_record_module",
    "tiledb": "tiledb",
    "grain": "grain",
    "torch": "torch",
}
# The harness's backend names, by the module they need (None: numpy only).
BACKENDS = {
    "dense": {
        "zrecord-zstd": None, "zrecord-zstdict": None, "zrecord-raw": None,
        "npy-mmap-raw": None, "hdf5-raw": "h5py", "hdf5-gzip": "h5py",
        "lmdb-raw": "lmdb", "arrow-ipc-raw": "pyarrow",
        "arrow-ipc-zstd": "pyarrow", "parquet-raw": "pyarrow",
        "parquet-zstd": "pyarrow",
        "arrayrecord-raw": "array_record.python.array_record_module",
        "arrayrecord-zstd": "array_record.python.array_record_module",
        "tiledb-raw": "tiledb", "tiledb-zstd": "tiledb",
    },
    "ragged": {
        "zrecord-raw": None, "zrecord-zstd": None, "zrecord-zstdict": None,
        "arrow-ipc-raw": "pyarrow", "arrow-ipc-zstd": "pyarrow",
        "hdf5-raw": "h5py", "hdf5-gzip": "h5py", "parquet-raw": "pyarrow",
        "parquet-zstd": "pyarrow",
        "arrayrecord-raw": "array_record.python.array_record_module",
        "arrayrecord-zstd": "array_record.python.array_record_module",
        "lmdb-raw": "lmdb", "tiledb-raw": "tiledb", "tiledb-zstd": "tiledb",
    },
    "loader": {
        "loaderx": None, "loaderx-raw": None, "torch": "torch",
        "grain": "array_record.python.array_record_module",
    },
}
# Per section: the harness script and its arguments, the metric the ratios
# use (higher is better unless `lower`), the row key, and the sizes --scale
# multiplies (with their defaults).
SECTIONS = {
    "dense": ("bench_dense.py", [], "logical gather", False,
              {"--records": 2500, "--batches": 50}),
    "ragged": ("bench_ragged.py", [], "logical gather", False,
               {"--records": 2500, "--batches": 50}),
    "loader": ("bench.py", ["loader"], "batches/s", False,
               {"--records": 2500, "--batches": 50}),
    "sampler": ("bench.py", ["sampler"], "per batch", True,
                {"--steps": 10000}),
}


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def harness_dir():
    """The harness scripts, unpacked from 1.7.7's sdist into the cache."""
    target = os.path.join(CACHE, "harness-1.7.7", "scripts")
    if os.path.exists(os.path.join(target, "_bench_common.py")):
        return target
    downloads = os.path.join(CACHE, "sdist")
    os.makedirs(downloads, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
         ":all:", REFERENCE, "-d", downloads], stdout=subprocess.DEVNULL)
    archive = os.path.join(downloads, "loaderx-1.7.7.tar.gz")
    os.makedirs(target, exist_ok=True)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            # Only the scripts: the sdist's own loaderx package must not be
            # beside them (the harness puts the scripts' parent on sys.path).
            if re.match(r"^loaderx-1\.7\.7/scripts/[^/]+\.py$", member.name):
                member.name = os.path.basename(member.name)
                tar.extract(member, target)
    return target


def venv_python():
    """The benchmark venv's interpreter; installs what is missing."""
    venv = os.path.join(CACHE, "venv")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv])
    return python


def install_contenders(python):
    """{pip name: None if usable, else why not}."""
    state = {}
    for name, module in CONTENDERS.items():
        if importable(python, module):
            state[name] = None
            continue
        done = subprocess.run(
            [python, "-m", "pip", "install", "--only-binary", ":all:",
             NUMPY_PIN, name],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            state[name] = "pip: " + done.stdout.strip().splitlines()[-1]
        elif not importable(python, module):
            state[name] = f"installed, but `import {module}` fails"
        else:
            state[name] = None
    return state


def importable(python, module, path=None):
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path
    return subprocess.run([python, "-c", f"import {module}"], env=env,
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def reference_package(python):
    """1.7.7's wheel in a directory of its own; its dependencies besides
    numpy (cffi, msgpack) in the venv."""
    target = os.path.join(CACHE, "loaderx-1.7.7")
    if not (importable(python, "cffi") and importable(python, "msgpack")):
        run([python, "-m", "pip", "install", "--only-binary", ":all:",
             NUMPY_PIN, "cffi", "msgpack"], stdout=subprocess.DEVNULL)
    if not importable(python, "loaderx.zrecord", target):
        shutil.rmtree(target, ignore_errors=True)
        run([python, "-m", "pip", "install", "--only-binary", ":all:",
             "--no-deps", "--target", target, REFERENCE],
            stdout=subprocess.DEVNULL)
    return target


def our_package(build):
    """This checkout's package, optimised, staged as DIR/loaderx."""
    if build:
        run(["bazel", "build", "--config=opt", "//swig:python"], cwd=REPO,
            stderr=subprocess.DEVNULL)
    bin_dir = subprocess.run(
        ["bazel", "info", "--config=opt", "bazel-bin"], cwd=REPO, check=True,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True).stdout.strip()
    target = tempfile.mkdtemp(prefix="loaderx-ours-")
    package = os.path.join(target, "loaderx")
    os.makedirs(package)
    source = os.path.join(REPO, "swig", "python", "loaderx")
    for name in os.listdir(source):
        if name.endswith(".py") or name == "py.typed":
            shutil.copy(os.path.join(source, name), package)
    for name in ("loaderx_native.py", "_loaderx_native.so"):
        shutil.copy(os.path.join(bin_dir, "swig", "python", "loaderx", name),
                    package)
    return target


def parse_tables(text):
    """Every table the harness printed: (header, rows of cells), where the
    first column is left-aligned and the others end where their headings
    end. Also the `skipped:` lines."""
    lines = text.split("\n")
    tables, skipped = [], []
    for i, line in enumerate(lines):
        if line.startswith("skipped:"):
            skipped.append(line)
        if i == 0 or not re.fullmatch(r"-{10,}", line):
            continue
        header = lines[i - 1]
        ends = [m.end() for m in re.finditer(r"\S+(?: \S+)*", header)]
        names = [m.group(0) for m in re.finditer(r"\S+(?: \S+)*", header)]
        rows = []
        for row in lines[i + 1:]:
            if not row.strip():
                break
            first = re.match(r"\S+(?: \S+)*", row).group(0)
            cells, start = [first], len(first)
            for end in ends[1:]:
                cells.append(row[start:end].strip())
                start = end
            rows.append(cells)
        tables.append((names, rows))
    return tables, skipped


def number(cell):
    match = re.match(r"^-?[0-9.]+", cell)
    return float(match.group(0)) if match else None


def compressed(name):
    return any(tag in name for tag in ("zstd", "gzip", "zstdict")) or \
        name == "loaderx"


def ours_name(name):
    return name.startswith(("zrecord", "loaderx")) or name == "zsampler"


def run_section(python, harness, section, package, scale, only):
    script, extra, _, _, sizes = SECTIONS[section]
    args = [python, os.path.join(harness, script)] + extra
    for flag, default in sizes.items():
        # The harness draws batches of 256 without replacement.
        least = 512 if flag == "--records" else 1
        args += [flag, str(max(least, int(default * scale)))]
    if only:
        args += ["--only", ",".join(only)]
    env = dict(os.environ, PYTHONPATH=package)
    work = tempfile.mkdtemp(prefix="loaderx-harness-")
    try:
        done = subprocess.run(args, cwd=work, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"{section} failed:\n{done.stdout}")
    tables, skipped = parse_tables(done.stdout)
    if not tables:
        raise SystemExit(f"{section}: no table in the harness's output:\n"
                         f"{done.stdout}")
    return tables[-1], skipped


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return (f"{min(values):.2f}–{statistics.median(values):.2f}–"
            f"{max(values):.2f}x")


def report(section, runs):
    """runs: {"1.7.7": [table per repetition], "ours": [...]}."""
    _, _, metric, lower, _ = SECTIONS[section]
    header = runs["ours"][0][0]
    column = header.index(metric)
    key_columns = [1] if section == "sampler" else []  # batch size

    def key(cells):
        return tuple([cells[0]] + [cells[i] for i in key_columns])

    def value(cells):
        return number(cells[column])

    ours_by_rep = [{key(r): r for r in table[1]} for table in runs["ours"]]
    ref_by_rep = [{key(r): r for r in table[1]} for table in runs["1.7.7"]]
    keys = list(ours_by_rep[0])
    for table in ref_by_rep:
        keys += [k for k in table if k not in keys]

    def better(a, b):  # how many times better a is than b
        if a is None or b is None or not a or not b:
            return None
        return b / a if lower else a / b

    lines = []  # (who, cells, vs 1.7.7, vs best other)
    for k in keys:
        for who, by_rep in (("1.7.7", ref_by_rep), ("ours", ours_by_rep)):
            if not ours_name(k[0]) and who == "1.7.7":
                continue  # other contenders: one row, from our runs
            rows = [t[k] for t in by_rep if k in t]
            if not rows:
                continue
            cells = []
            for i in range(len(header)):
                values = [number(r[i]) for r in rows]
                if i in [0] + key_columns or None in values:
                    cells.append(rows[0][i])
                else:
                    unit = re.sub(r"^-?[0-9.]+", "", rows[0][i])
                    median = statistics.median(values)
                    cells.append(f"{median:.{2 if median < 10 else 0}f}{unit}")
            vs_ref = vs_best = ""
            if who == "ours" and ours_name(k[0]):
                vs_ref = spread([better(value(o[k]), value(r[k]))
                                 for o, r in zip(ours_by_rep, ref_by_rep)
                                 if k in o and k in r])
                best_ratios = []
                for o in ours_by_rep:
                    others = [value(r) for kk, r in o.items()
                              if not ours_name(kk[0]) and
                              kk[1:] == k[1:] and
                              (section == "loader" or
                               compressed(kk[0]) == compressed(k[0])) and
                              value(r) is not None]
                    if others and k in o:
                        best = min(others) if lower else max(others)
                        best_ratios.append(better(value(o[k]), best))
                vs_best = spread(best_ratios)
            lines.append([who if ours_name(k[0]) else ""] + cells +
                         [vs_ref, vs_best])
    titles = ["who"] + header + ["ours / 1.7.7", "ours / best other"]
    widths = [max(len(t), *(len(line[i]) for line in lines))
              for i, t in enumerate(titles)]

    def render(cells):
        return "  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i])
                         for i, c in enumerate(cells))

    print(f"\n{section}: the harness's table, medians over "
          f"{len(runs['ours'])} repetitions; ratios min–median–max "
          f"({metric}{', lower is better' if lower else ''})\n")
    print(render(titles))
    print("-" * len(render(titles)))
    for line in lines:
        print(render(line))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", default="dense,ragged,loader,sampler")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-build", action="store_true",
                        help="use the optimised build as it is")
    args = parser.parse_args()
    sections = [s for s in args.sections.split(",") if s]
    for section in sections:
        if section not in SECTIONS:
            parser.error(f"unknown section {section!r}")

    harness = harness_dir()
    python = venv_python()
    log("contenders: installing what is missing into " + CACHE)
    state = install_contenders(python)
    packages = {"1.7.7": reference_package(python),
                "ours": our_package(not args.no_build)}
    print("loaderx 1.7.7's benchmark harness (from its sdist), "
          f"{os.cpu_count()} cores; contenders:")
    for name, why in state.items():
        print(f"  {name:<13} {'ok' if why is None else 'NOT RUN: ' + why}")

    for section in sections:
        only = None
        if section in BACKENDS:
            only = [b for b, module in BACKENDS[section].items()
                    if module is None or importable(python, module)]
            left_out = sorted(set(BACKENDS[section]) - set(only))
            if left_out:
                print(f"{section}: not run (not importable): "
                      f"{', '.join(left_out)}")
        runs = {"1.7.7": [], "ours": []}
        for repetition in range(args.repeat):
            order = ["1.7.7", "ours"]
            random.shuffle(order)
            for who in order:
                log(f"{section} {repetition + 1}/{args.repeat}: {who}")
                table, skipped = run_section(python, harness, section,
                                             packages[who], args.scale, only)
                runs[who].append(table)
                for line in skipped:
                    print(f"{section} ({who}): {line}")
        report(section, runs)
    shutil.rmtree(packages["ours"], ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
