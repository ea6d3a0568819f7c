"""bench_score.py reports a failing contender as a FAILED row and runs on.

The driver is run (tiny sizes) with an interpreter standing in for loaderx
1.7.7's that fails in the two ways a contender's subprocess can: for appends
it writes a line to stderr and dies of SIGSEGV (as 1.7.7 did at exit with a
zstd store left open), for gathers it prints a result whose digest is not
the source records'. Every other contender must still be timed, every
workload's table printed, and the run must end with exit status 1.
"""

import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

FAILING_REFERENCE = """#!/bin/sh
# argv: -I -c SCRIPT mode path plan batch rounds
if [ "$4" = append ]; then
  echo "Traceback (most recent call last):" >&2
  echo "the appending contender fell over" >&2
  kill -SEGV $$
fi
echo '{"times": [0.5], "hash": "not-the-records"}'
"""


class BenchScoreFailureTest(unittest.TestCase):

    def test_failed_contenders_are_rows_and_the_run_goes_on(self):
        work = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        fake = os.path.join(work, "python-1.7.7")
        with open(fake, "w") as f:
            f.write(FAILING_REFERENCE)
        os.chmod(fake, stat.S_IRWXU)
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "bench_score.py"), "--quick",
             "--only", "dense-64B-raw,append-64B-raw", f"--reference-python={fake}",
             f"--bare-gather={os.path.join(HERE, 'bare_gather')}", f"--dir={work}"],
            capture_output=True, text=True, timeout=600)
        out = done.stdout
        self.assertEqual(done.returncode, 1, out + done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn("## dense-64B-raw", out)
        self.assertIn("## append-64B-raw", out)
        self.assertIn(
            "loaderx-1.7.7 append        FAILED: loaderx 1.7.7's subprocess: killed by "
            "SIGSEGV; stderr: the appending contender fell over", out)
        self.assertIn("loaderx-1.7.7               FAILED: wrong bytes", out)
        # The others were timed: a rate column, and no 1.7.7 ratio column.
        for row in ("loaderx store[idx] ", "loaderx gather_into ", "limit memcpy ",
                    "loaderx append ", "loaderx appends only "):
            line = next(l for l in out.splitlines() if l.startswith(row))
            self.assertRegex(line, r"\d+\.\d+-\d+\.\d+", line)
        self.assertNotIn("vs loaderx-1.7.7", out)
        self.assertIn("3 contender(s) failed: dense-64B-raw: loaderx-1.7.7; "
                      "append-64B-raw: loaderx-1.7.7 append; "
                      "append-64B-raw: loaderx-1.7.7 appends only", out)


if __name__ == "__main__":
    unittest.main()
