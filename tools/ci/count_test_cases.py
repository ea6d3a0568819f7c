#!/usr/bin/env python3
"""Counts the test cases of test runs (gtest, pytest and JUnit reports alike)
and prints their closing line.

  count_test_cases.py LABEL --bep BEP_JSON TALLY
      count the cases of one `bazel test` run from the build event file it
      wrote (`--build_event_json_file`): every test target's result names its
      own test.xml by absolute path, so another Bazel command repointing the
      `bazel-testlogs` symlink meanwhile cannot change the count. Prints
      `LABEL: N passed, M failed` and adds the counts to the TALLY file.
  count_test_cases.py LABEL --xml-dir DIR TALLY
      the same for JUnit reports (`*.xml`) that a suite run outside Bazel
      wrote into DIR.
  count_test_cases.py --total TALLY
      print the sum of every run in TALLY as the closing line,
      `total: N passed, M failed`.

Exits non-zero if any case failed or no case ran: a run that executes
nothing is no pass. A target whose run left no report, or that Bazel did not
report as passed, counts as one failure.
"""

import json
import pathlib
import sys
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree


def count_report(report, counts):
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        elif case.get("result") == "skipped" or case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1


def new_counts():
    return {"passed": 0, "failed": 0, "skipped": 0}


def count_bep(bep_file):
    """Counts from a build event JSON file: one test.xml per test attempt
    (the last attempt of each target and shard counts)."""
    reports = {}   # (label, shard, run) -> path of the last attempt's test.xml
    statuses = {}  # label -> overall status
    targets = set()
    for row in pathlib.Path(bep_file).read_text().splitlines():
        event = json.loads(row)
        ident = event.get("id", {})
        if "testResult" in ident:
            key = ident["testResult"]
            label = key["label"]
            slot = (label, key.get("shard", 0), key.get("run", 0))
            attempt = key.get("attempt", 1)
            for output in event.get("testResult", {}).get("testActionOutput", []):
                if output.get("name") == "test.xml":
                    uri = output["uri"]
                    path = urllib.request.url2pathname(urllib.parse.urlparse(uri).path)
                    if slot not in reports or reports[slot][0] <= attempt:
                        reports[slot] = (attempt, path)
        elif "testSummary" in ident:
            label = ident["testSummary"]["label"]
            targets.add(label)
            statuses[label] = event.get("testSummary", {}).get("overallStatus", "")
    counts = new_counts()
    reported = set()
    for (label, _, _), (_, path) in sorted(reports.items()):
        if pathlib.Path(path).exists():
            count_report(path, counts)
            reported.add(label)
    for label in sorted(targets):
        if label not in reported:
            counts["failed"] += 1  # A test that left no report did not pass.
        elif statuses.get(label) not in ("PASSED", "FLAKY"):
            # Bazel says it failed (a crash after the report, a timeout):
            # make sure it cannot count as a pass.
            counts["failed"] += 1
    return counts


def count_xml_dir(directory):
    counts = new_counts()
    reports = sorted(pathlib.Path(directory).glob("*.xml"))
    for report in reports:
        count_report(report, counts)
    return counts


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
        return 0 if ok(total) and all(ok(run) for run in runs) else 1
    if len(argv) == 5 and argv[2] in ("--bep", "--xml-dir"):
        label, mode, source, tally = argv[1:]
        counts = count_bep(source) if mode == "--bep" else count_xml_dir(source)
        print(line(label, counts))
        with open(tally, "a") as out:
            out.write(json.dumps(counts) + "\n")
        return 0 if ok(counts) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
