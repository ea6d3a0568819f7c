#!/usr/bin/env python3
"""Prints the slowest tests of `bazel test` runs against their timeouts, as a
markdown table, from the build event files the runs wrote
(`--build_event_json_file`).

  test_durations.py [--top N] [--check] LABEL=BEP_JSON...

Each row is one test target of one run: its size, its timeout, its slowest
shard's duration (a sharded test's timeout applies to each shard), and the
duration as a fraction of the timeout. A result Bazel took from its cache
is marked, since its duration is the original run's. With --check, exits
non-zero if any test took more than a third of its timeout (the project's
rule: no test within a factor of 3 of its timeout).
"""

import argparse
import json
import sys


def read_run(path):
    """{label: {"size", "timeout", "millis", "cached", "shards"}} of one run."""
    tests = {}
    for line in open(path, encoding="utf-8"):
        event = json.loads(line)
        event_id = event.get("id", {})
        if "targetConfigured" in event_id and "configured" in event:
            size = event["configured"].get("testSize")
            if size:
                label = event_id["targetConfigured"]["label"]
                tests.setdefault(label, {})["size"] = size.lower()
        elif "targetCompleted" in event_id and "completed" in event:
            timeout = event["completed"].get("testTimeoutSeconds")
            if timeout:
                label = event_id["targetCompleted"]["label"]
                tests.setdefault(label, {})["timeout"] = int(timeout)
        elif "testResult" in event_id and "testResult" in event:
            label = event_id["testResult"]["label"]
            result = event["testResult"]
            test = tests.setdefault(label, {})
            millis = int(result.get("testAttemptDurationMillis", 0))
            test["millis"] = max(test.get("millis", 0), millis)
            test["shards"] = max(test.get("shards", 1),
                                 int(event_id["testResult"].get("shard", 1)))
            test["cached"] = test.get("cached", False) or bool(
                result.get("cachedLocally") or
                result.get("executionInfo", {}).get("cachedRemotely"))
            test["status"] = result.get("status", "")
    return {label: test for label, test in tests.items()
            if "millis" in test and "timeout" in test}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("runs", nargs="+", metavar="LABEL=BEP_JSON")
    args = parser.parse_args()

    rows = []
    for run in args.runs:
        name, _, path = run.partition("=")
        for label, test in read_run(path).items():
            rows.append((test["millis"] / 1000 / test["timeout"], name, label,
                         test))
    rows.sort(key=lambda row: row[0], reverse=True)
    print("| run | test | size | shards | timeout | slowest shard | of timeout |")
    print("|---|---|---|---:|---:|---:|---:|")
    for fraction, name, label, test in rows[:args.top]:
        cached = " (cached)" if test["cached"] else ""
        print(f"| {name} | `{label}` | {test.get('size', '?')} | "
              f"{test['shards']} | {test['timeout']} s | "
              f"{test['millis'] / 1000:.1f} s{cached} | {fraction:.0%} |")
    over = [row for row in rows if row[0] > 1 / 3]
    for fraction, name, label, test in over:
        print(f"{name}: {label} took {fraction:.0%} of its "
              f"{test['timeout']} s timeout", file=sys.stderr)
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
