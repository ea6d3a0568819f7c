"""The oracle itself: the cached venv imports the published loaderx 1.7.7
from a process of its own, and its interpreter is not this one."""

import sys

import reference


def test_reference_is_the_published_package():
    python = reference.reference_python()
    assert python != sys.executable
    result = reference.run_reference_json(
        "import json, loaderx, loaderx.zrecord, loaderx.zsampler\n"
        "print(json.dumps({'version': loaderx.__version__,\n"
        "                  'file': loaderx.__file__}))")
    assert result["version"] == reference.REFERENCE_VERSION
    assert "site-packages" in result["file"]


def test_reference_failure_is_reported():
    done = reference.run_reference("raise SystemExit(3)", check=False)
    assert done.returncode == 3
