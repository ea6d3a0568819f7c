"""Regenerates tests/data/sampler_golden.txt from the published loaderx 1.7.7.

    python3 tests/oracle/make_sampler_golden.py [output]
    bazel run //tests/oracle:make_sampler_golden        (writes into the tree)

Runs the golden grid (`sampler_cases.golden_grid`) in the reference's own
venv (`reference.py` installs loaderx==1.7.7 from PyPI into a cached venv the
first time) and writes its answers in the format the file's header
describes. The oracle test checks that the committed file is still what the
reference answers.
"""

import os
import pathlib
import sys

import reference
import sampler_cases

HEADER = """\
# Sampler sequences recorded from loaderx 1.7.7 (PyPI), the reference
# implementation. Do not edit: regenerate with
#   python3 tests/oracle/make_sampler_golden.py
# which runs loaderx==1.7.7 in a cached venv (tests/oracle/reference.py).
# Read by src/sampler_golden_test.cc and tests/java/org/loaderx/SamplerTest.java;
# tests/oracle/sampler_oracle_test.py checks the file against the reference.
#
# Lines starting with '#' are comments. A case starts with
#   sampler <mode> <length> <batch_size> <seed>
# (mode 0 sequential, 1 iid, 2 cyclic) and is followed by its calls in order:
#   next <index> <index> ...    next() returned these indices
#   seek <step>                 seek(step)
# Every number is an unsigned 64-bit decimal.
"""


def render(cases, results):
    """The golden file's text for `cases` and the reference's `results`."""
    lines = [HEADER]
    for (mode, length, batch_size, seed, calls), batches in zip(cases, results):
        lines.append(f"sampler {mode} {length} {batch_size} {seed}\n")
        answers = iter(batches)
        for call in calls:
            if call[0] == "next":
                lines.append(" ".join(["next", *map(str, next(answers))]) + "\n")
            else:
                lines.append(f"seek {call[1]}\n")
    return "".join(lines)


def golden_text():
    """Runs the golden grid on the reference and renders the file."""
    cases = sampler_cases.golden_grid()
    results = sampler_cases.run_driver(cases, reference.run_reference_json)
    return render(cases, results)


def default_output():
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if root is None:
        root = pathlib.Path(__file__).absolute().parent.parent.parent
    return pathlib.Path(root) / "tests" / "data" / "sampler_golden.txt"


def main(argv):
    output = pathlib.Path(argv[1]) if len(argv) > 1 else default_output()
    output.write_text(golden_text())
    print(f"wrote {output}")


if __name__ == "__main__":
    main(sys.argv)
