"""The published loaderx 1.7.7 as an oracle for the drop-in tests.

The reference runs in a virtual environment of its own (never the system
interpreter, and never in the test's own process): `reference_python()`
installs `loaderx==1.7.7` from PyPI into a cached venv the first time and
returns that venv's interpreter; `run_reference()` runs a script there, in
isolated mode (`-I`: no PYTHONPATH, so the test's own `loaderx` on the
runfiles path cannot shadow the reference). A
venv that cannot be built is an error, so a test that needs the oracle fails
rather than skips when PyPI is unreachable.

The cache lives in `$LOADERX_CACHE/oracle` (default `/var/tmp/loaderx-cache`,
which survives reboots and needs no HOME). A venv counts as built only once a
stamp file records that `import loaderx` reported 1.7.7, so an interrupted
install is redone; a file lock serialises concurrent first runs.
"""

import fcntl
import json
import os
import pathlib
import shutil
import subprocess
import sys

REFERENCE_REQUIREMENT = "loaderx==1.7.7"
REFERENCE_VERSION = "1.7.7"
# The interpreter the venv is made from: Debian's CPython 3.11, which the
# reference's cp311 wheel supports. Overridable for other machines.
BASE_PYTHON = os.environ.get("LOADERX_ORACLE_BASE_PYTHON", "/usr/bin/python3")


def cache_root():
    return pathlib.Path(os.environ.get("LOADERX_CACHE") or "/var/tmp/loaderx-cache")


def _venv_dir():
    return cache_root() / "oracle" / f"loaderx-{REFERENCE_VERSION}"


def _installed_version(python):
    probe = subprocess.run(
        [str(python), "-I", "-c", "import loaderx; print(loaderx.__version__)"],
        capture_output=True, text=True, timeout=120)
    return probe.stdout.strip() if probe.returncode == 0 else None


def reference_python():
    """The path of an interpreter that imports loaderx 1.7.7, building the
    cached venv if needed. Raises RuntimeError if it cannot be built."""
    venv = _venv_dir()
    python = venv / "bin" / "python"
    stamp = venv / "loaderx-oracle.stamp"
    if stamp.exists() and python.exists():
        return str(python)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and python.exists():
            return str(python)
        shutil.rmtree(venv, ignore_errors=True)
        env = dict(os.environ)
        env.setdefault("HOME", str(cache_root()))
        env["PIP_CACHE_DIR"] = str(cache_root() / "pip")
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        steps = [
            [BASE_PYTHON, "-m", "venv", str(venv)],
            [str(python), "-I", "-m", "pip", "install", "--quiet", REFERENCE_REQUIREMENT],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, env=env,
                                  timeout=900)
            if done.returncode != 0:
                raise RuntimeError(
                    f"cannot build the loaderx {REFERENCE_VERSION} oracle venv: "
                    f"{' '.join(step)} failed:\n{done.stdout}\n{done.stderr}")
        version = _installed_version(python)
        if version != REFERENCE_VERSION:
            raise RuntimeError(
                f"the oracle venv at {venv} imports loaderx {version!r}, "
                f"want {REFERENCE_VERSION}")
        stamp.write_text(REFERENCE_REQUIREMENT + "\n")
    return str(python)


def run_reference(script, *args, timeout=600, check=True):
    """Runs `script` (Python source) in the reference's interpreter, in a
    process of its own, with `args` as sys.argv[1:]. Returns the completed
    process (text mode). With `check`, a non-zero exit raises with the
    script's output."""
    done = subprocess.run([reference_python(), "-I", "-c", script, *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(
            f"reference script failed (exit {done.returncode}):\n"
            f"{done.stdout}\n{done.stderr}")
    return done


def run_reference_json(script, *args, timeout=600):
    """Runs `script` in the reference's interpreter and parses the JSON it
    prints as its last line of standard output."""
    done = run_reference(script, *args, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"reference script printed nothing:\n{done.stderr}")
    return json.loads(lines[-1])


def run_here_json(script, *args):
    """The counterpart of `run_reference_json` for the loaderx under test:
    runs `script` in this process, with `args` as sys.argv[1:], and parses
    the JSON it prints as its last line."""
    import contextlib
    import io

    output = io.StringIO()
    argv = sys.argv
    sys.argv = ["script", *map(str, args)]
    try:
        with contextlib.redirect_stdout(output):
            exec(compile(script, "<script>", "exec"), {"__name__": "__main__"})
    finally:
        sys.argv = argv
    lines = output.getvalue().strip().splitlines()
    if not lines:
        raise RuntimeError("script printed nothing")
    return json.loads(lines[-1])


if __name__ == "__main__":
    print(reference_python())
    sys.exit(0)
