"""Runs pytest over the test files given as arguments, as a Bazel py_test.

Writes a JUnit XML report where Bazel asks for one ($XML_OUTPUT_FILE), so
test cases are counted one by one, and turns pytest's "no tests ran" into a
failure: a suite that runs nothing has not passed.
"""

import os
import sys

import pytest


def main():
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(f"run_pytest: CPython {sys.version.split()[0]} at {sys.executable}"
          f" (GIL {'enabled' if gil else 'disabled'})")
    args = ["-p", "no:cacheprovider", "-q"] + sys.argv[1:]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args += ["--junitxml", xml]
    code = pytest.main(args)
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("no tests ran", file=sys.stderr)
        return 1
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
