#!/usr/bin/env python3
"""Counts the test cases of test runs (gtest, pytest and JUnit reports alike)
and prints their closing line.

  count_test_cases.py LABEL TESTLOGS TALLY < TARGETS   sum the gtest cases
      in the test.xml reports under TESTLOGS of the test targets listed on
      standard input (one `bazel test` run; stale reports of targets that
      no longer exist are not counted), print
      `LABEL: N passed, M failed`, and add the counts to the TALLY file.
  count_test_cases.py --total TALLY          print the sum of every run in
      TALLY as the closing line, `total: N passed, M failed`.

Exits non-zero if any case failed or no case ran: a run that executes
nothing is no pass.
"""

import json
import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def count(testlogs, targets):
    passed = failed = skipped = 0
    for target in targets:
        # //pkg/path:name -> TESTLOGS/pkg/path/name/test.xml
        package, name = target.lstrip("/").split(":")
        report = pathlib.Path(testlogs, package, name, "test.xml")
        if not report.exists():
            failed += 1  # A test that left no report did not pass.
            continue
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.get("result") == "skipped" or case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    return {"passed": passed, "failed": failed, "skipped": skipped}


def line(label, counts):
    text = f"{label}: {counts['passed']} passed, {counts['failed']} failed"
    if counts["skipped"]:
        text += f", {counts['skipped']} skipped"
    return text


def ok(counts):
    return counts["failed"] == 0 and counts["passed"] > 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--total":
        tally = pathlib.Path(argv[2])
        runs = [json.loads(row) for row in tally.read_text().splitlines()] if tally.exists() else []
        total = {key: sum(run[key] for run in runs) for key in ("passed", "failed", "skipped")}
        print(line("total", total))
        return 0 if ok(total) else 1
    if len(argv) == 4:
        label, testlogs, tally = argv[1:]
        targets = [t.strip() for t in sys.stdin if t.strip()]
        counts = count(testlogs, targets)
        print(line(label, counts))
        with open(tally, "a") as out:
            out.write(json.dumps(counts) + "\n")
        return 0 if ok(counts) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
