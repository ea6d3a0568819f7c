"""The jar as users get it: `java -cp loaderx.jar:. Example` with no
-Djava.library.path (the jar loads the native library it carries), and the
Scala example compiled with Debian's scalac against the jar, reading stores
written here from Python."""

import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from loaderx.zrecord import DenseStore, RaggedStore

RUNFILES = pathlib.Path(os.environ.get("TEST_SRCDIR", ".")) / "loaderx"
JAR = RUNFILES / "swig/loaderx.jar"


def run(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAVA_")}
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result.stdout


def test_java_example_runs_from_the_jar_alone(tmp_path):
    shutil.copy(JAR, tmp_path / "loaderx.jar")
    shutil.copy(RUNFILES / "tests/java/example/Example.java", tmp_path)
    run(["javac", "-cp", "loaderx.jar", "Example.java"], tmp_path)
    out = run(["java", "-cp", "loaderx.jar:.", "Example"], tmp_path)
    assert out.strip() == "loaded 320 aligned records"


@pytest.mark.skipif(shutil.which("scalac") is None,
                    reason="Debian's scala is installed by tools/ci/install_deps.sh")
def test_scala_example_reads_stores_written_from_python(tmp_path):
    root = tmp_path / "data"
    with DenseStore(str(root / "labels"), np.int64, item_shape=(), codec="zstd") as labels:
        labels.append(np.arange(60, dtype=np.int64))
    with RaggedStore(str(root / "tokens"), np.int32, codec="raw") as tokens:
        tokens.append([np.full(1 + i % 4, i, dtype=np.int32) for i in range(60)])
    shutil.copy(JAR, tmp_path / "loaderx.jar")
    shutil.copy(RUNFILES / "tests/scala/LoaderExample.scala", tmp_path)
    run(["scalac", "-cp", "loaderx.jar", "LoaderExample.scala"], tmp_path)
    out = run(["scala", "-cp", "loaderx.jar:.", "LoaderExample", str(root)], tmp_path)
    assert "scala: loaded 400 aligned records from 60" in out
