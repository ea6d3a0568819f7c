#!/usr/bin/env python3
"""Runs every code block the docs mark as an example, so no page drifts.

A block is an example when the line just before its opening fence is
`<!-- example: LANG -->`, LANG one of:

    python  run by PYTHON in a fresh process, `loaderx` from --python-path
    sh      run by `bash -euo pipefail`, the installed CLI first on PATH
    cpp     compiled with g++ -std=c++20 against the installed tree
          (`pkg-config loaderx` under --prefix), then run
    java    compiled by javac against --jar (the file is named after its
          public class), then run

Each example runs in an empty directory of its own. Writes one JUnit XML
file (one case per example, named FILE:LINE) for count_test_cases.py and
exits non-zero if any example failed or a page marks none.

    run_examples.py --python-path DIR --prefix DIR --jar JAR --xml OUT.xml MD...
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from xml.sax.saxutils import escape, quoteattr

MARK = re.compile(r"^<!-- example: (python|sh|cpp|java) -->$")


def find_examples(path):
    """(line, lang, code) for each marked block of the Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for i, line in enumerate(lines):
        match = MARK.match(line)
        if not match:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise SystemExit(f"{path}:{i + 1}: example mark not followed by a fence")
        end = i + 2
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            raise SystemExit(f"{path}:{i + 2}: unterminated code block")
        found.append((i + 2, match.group(1), "\n".join(lines[i + 2:end]) + "\n"))
    return found


def run(cmd, cwd, env, timeout=600):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


def run_example(lang, code, work, args):
    """The failure output, or None when the example ran cleanly."""
    env = dict(os.environ)
    env["PYTHONPATH"] = args.python_path
    env["PATH"] = os.path.join(args.prefix, "bin") + os.pathsep + env["PATH"]
    env["PKG_CONFIG_PATH"] = os.path.join(args.prefix, "lib", "pkgconfig")
    steps = []
    if lang == "python":
        open(os.path.join(work, "example.py"), "w").write(code)
        steps.append([args.python, "example.py"])
    elif lang == "sh":
        open(os.path.join(work, "example.sh"), "w").write(code)
        steps.append(["bash", "-euo", "pipefail", "example.sh"])
    elif lang == "cpp":
        open(os.path.join(work, "example.cc"), "w").write(code)
        flags = run(["pkg-config", "--cflags", "--libs", "loaderx"], work, env)
        if flags.returncode:
            return flags.stdout
        steps.append(["g++", "-std=c++20", "-o", "example", "example.cc"] +
                 flags.stdout.split())
        steps.append(["./example"])
    elif lang == "java":
        name = re.search(r"public (?:final )?class (\w+)", code)
        if not name:
            return "a Java example needs a public class"
        open(os.path.join(work, name.group(1) + ".java"), "w").write(code)
        steps.append(["javac", "-cp", args.jar, name.group(1) + ".java"])
        steps.append(["java", "-cp", args.jar + os.pathsep + ".", name.group(1)])
    log = []
    for step in steps:
        done = run(step, work, env)
        log.append("$ " + " ".join(step) + "\n" + done.stdout)
        if done.returncode:
            return "".join(log) + f"exit status {done.returncode}\n"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python-path", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--jar", required=True)
    parser.add_argument("--xml", required=True)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    args.python_path = os.path.abspath(args.python_path)
    args.prefix = os.path.abspath(args.prefix)
    args.jar = os.path.abspath(args.jar)

    cases, failures = [], 0
    for page in args.pages:
        examples = find_examples(page)
        for line, lang, code in examples:
            work = tempfile.mkdtemp(prefix="loaderx-example-")
            start = time.monotonic()
            try:
                failure = run_example(lang, code, work, args)
            except subprocess.TimeoutExpired as e:
                failure = f"timed out after {e.timeout} s"
            finally:
                shutil.rmtree(work, ignore_errors=True)
            name = f"{page}:{line} ({lang})"
            print(("FAIL " if failure else "ok   ") + name, flush=True)
            if failure:
                failures += 1
                print(failure, file=sys.stderr)
            cases.append((name, time.monotonic() - start, failure))
    with open(args.xml, "w") as out:
        out.write(f'<testsuite name="docs-examples" tests="{len(cases)}" '
                  f'failures="{failures}">\n')
        for name, seconds, failure in cases:
            out.write(f'  <testcase name={quoteattr(name)} time="{seconds:.3f}">')
            if failure:
                out.write(f'<failure message="example failed">{escape(failure)}'
                          '</failure>')
            out.write("</testcase>\n")
        out.write("</testsuite>\n")
    if not cases:
        print("no examples found", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
