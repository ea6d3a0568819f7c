"""loaderx 1.7.7's own test suite (scripts/test_loaderx.py in its source
distribution, from PyPI) run against this package: every test passes but
the two that call 1.7.7's private binding (`loaderx._store`), which this
package does not have.

The suite imports `loaderx._lib` and `loaderx._store` at the top; a
conftest.py gives it stand-ins whose every use raises, so the tests that
need them fail alone. The source distribution is cached in
`$LOADERX_CACHE/oracle` (fetched once, with `pip download`).
"""

import fcntl
import os
import pathlib
import subprocess
import sys
import tarfile

import pytest

import loaderx
import reference

SUITE = "loaderx-1.7.7/scripts/test_loaderx.py"
# The tests that call 1.7.7's private `_build_dict` / `_DenseStore`.
PRIVATE_BINDING_TESTS = {
    "test_dtype_identity_roundtrip_and_object_rejection",
    "test_empty_directory_create_and_invalid_dict_retry",
}

_STANDINS = '''
import sys, types

class _Private:
    """1.7.7's private binding, which loaderx-cpp does not have."""
    def __init__(self, name):
        self._name = name
    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self._name} is 1.7.7's private binding")
    def __getattr__(self, attribute):
        return _Private(f"{self._name}.{attribute}")

for _name in ("loaderx._lib", "loaderx._store"):
    _module = types.ModuleType(_name)
    _module.__getattr__ = lambda attribute, _name=_name: _Private(f"{_name}.{attribute}")
    sys.modules[_name] = _module
import loaderx
loaderx._lib = sys.modules["loaderx._lib"]
'''


def _sdist():
    directory = reference.cache_root() / "oracle" / "sdist"
    directory.mkdir(parents=True, exist_ok=True)
    archive = directory / f"loaderx-{reference.REFERENCE_VERSION}.tar.gz"
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not archive.exists():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                 "--no-binary", ":all:", "-d", str(directory),
                 reference.REFERENCE_REQUIREMENT],
                check=True, timeout=600)
    return archive


def test_the_references_suite_passes_but_its_private_binding_tests(tmp_path):
    with tarfile.open(_sdist()) as archive:
        source = archive.extractfile(SUITE).read()
    (tmp_path / "test_loaderx.py").write_bytes(source)
    (tmp_path / "conftest.py").write_text(_STANDINS)
    package = pathlib.Path(loaderx.__file__).parent.parent
    env = dict(os.environ, PYTHONPATH=str(package))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-rf", "test_loaderx.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    print(run.stdout[-6000:], run.stderr[-3000:])
    failed = {line.split("::")[1].split()[0] for line in run.stdout.splitlines()
              if line.startswith("FAILED ")}
    assert failed == PRIVATE_BINDING_TESTS
    summary = run.stdout.strip().splitlines()[-1]
    assert "2 failed" in summary and "error" not in summary, summary
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed == 31, summary
    # The suite did run against this package, not 1.7.7.
    assert loaderx.__version__ != reference.REFERENCE_VERSION
