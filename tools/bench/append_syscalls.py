"""System calls of the append workload, ours against loaderx 1.7.7's.

Runs the score's append pass (a store created, 64 B records appended 4096
at a time, closed, which syncs) under `strace -f` in a process of its own
for each library, and prints the calls of each phase (create, appends,
close) by name, and the appends' calls per batch and per record. System
call counts do not depend on how busy the machine is, unlike time. Syncs
are also counted in the rounds seen overlapping in the trace (syncs on
other threads that started before one returned); whether issued-together
syncs are seen to overlap depends on how long the disk takes, so
//tools/bench:append_sync_rounds counts our store's rounds exactly.

    bazel run --config=opt //tools/bench:append_syscalls -- [--records 262144]

Needs strace (apt-get install strace); 1.7.7 comes from the oracle venv
(tests/oracle/reference.py), reported as missing when it cannot be built.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The pass, with a marker system call (a stat of a path that does not
# exist) before each phase.
PASS = r"""
import os, sys
import numpy as np
from loaderx.zrecord import DenseStore
target, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = np.random.default_rng(0).integers(0, 256, (count, 64), dtype=np.uint8)
def mark(phase):
    try: os.stat("/loaderx-phase-" + phase)
    except OSError: pass
mark("create")
store = DenseStore(target, data.dtype, data.shape[1:], codec="raw")
mark("appends")
for b in range(0, count, batch):
    store.append(data[b:b + batch])
mark("close")
store.close()
mark("end")
"""

PHASES = ("create", "appends", "close")


SYNCS = ("fsync", "fdatasync", "sync_file_range", "msync")


def count_calls(trace_path):
    """({phase: Counter(syscall name)}, {phase: sync rounds}) from an
    `strace -f` output. A sync round is a run of syncs each of which starts
    while another of the run is still in flight (strace prints such a call
    as `<unfinished ...>` and its end as `<... resumed>`)."""
    phase = None
    counts = {p: collections.Counter() for p in PHASES}
    rounds = collections.Counter()
    in_flight = set()  # Threads inside a sync.
    for line in open(trace_path):
        marked = re.search(r'"/loaderx-phase-(\w+)"', line)
        if marked:
            phase = marked.group(1)
            continue
        pid = re.match(r"(?:\[pid\s+)?(\d+)", line)
        pid = pid.group(1) if pid else ""
        resumed = re.search(r"<\.\.\. (\w+) resumed>", line)
        if resumed:
            if resumed.group(1) in SYNCS:
                in_flight.discard(pid)
            continue
        if phase not in counts:
            continue
        call = re.match(r"(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\(", line)
        if not call:
            continue
        counts[phase][call.group(1)] += 1
        if call.group(1) in SYNCS:
            if not in_flight:
                rounds[phase] += 1
            if "<unfinished" in line:
                in_flight.add(pid)
    return counts, rounds


def trace(name, command, records, batch):
    work = tempfile.mkdtemp(prefix="loaderx_append_syscalls_")
    try:
        trace_path = os.path.join(work, "trace")
        done = subprocess.run(
            ["strace", "-f", "-o", trace_path, *command, "-c", PASS,
             os.path.join(work, "store"), str(records), str(batch)],
            capture_output=True, text=True)
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            print(f"{name}: FAILED: exit {done.returncode}; "
                  f"{lines[-1] if lines else '(nothing on stderr)'}")
            return False
        counts, rounds = count_calls(trace_path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    batches = -(-records // batch)
    print(f"\n## {name}")
    for phase in PHASES:
        calls = counts[phase]
        total = sum(calls.values())
        line = f"{phase:8} {total:6} calls"
        if phase == "appends":
            line += f" ({total / batches:.1f} per batch, {total / records:.5f} per record)"
        syncs = sum(calls[name] for name in SYNCS)
        line += f"; {syncs} syncs in {rounds[phase]} rounds seen"
        print(line)
        print("         " + ", ".join(f"{c} {n}" for c, n in calls.most_common()))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=262144)
    parser.add_argument("--batch", type=int, default=4096)
    args = parser.parse_args()
    if shutil.which("strace") is None:
        sys.exit("append_syscalls: strace is missing (apt-get install strace)")
    ok = trace("loaderx", [sys.executable], args.records, args.batch)
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    try:
        from tests.oracle.reference import reference_python
        ok = trace("loaderx 1.7.7", [reference_python(), "-I"], args.records,
                   args.batch) and ok
    except Exception as error:  # No venv and no network: say so.
        print(f"\n## loaderx 1.7.7\nmissing: {type(error).__name__}: {error}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
