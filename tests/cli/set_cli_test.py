"""`loaderx set create` and `info` / `stats` / `verify` / `head` / `cat` /
`export` of a store set, run
as users run them (the binary and `python -m loaderx`): the manifest names
the stores relative to itself, the reports sum the members, a damaged
record is reported as its set position with its member named, and a member
changed after the set was written fails naming it."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import loaderx.zrecord

EXIT_OK, EXIT_DAMAGED = 0, 1


def _binary():
    runfiles = pathlib.Path(os.environ["TEST_SRCDIR"])
    return str(runfiles / os.environ["TEST_WORKSPACE"] / "tools/cli/loaderx")


@pytest.fixture(params=["binary", "python"])
def cli(request, tmp_path):
    prefix = ([_binary()] if request.param == "binary"
              else [sys.executable, "-m", "loaderx"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def run(*args):
        return subprocess.run(prefix + [str(a) for a in args], cwd=tmp_path,
                              env=env, capture_output=True, timeout=300)
    return run


@pytest.fixture
def shards(tmp_path):
    (tmp_path / "shards").mkdir()
    paths = []
    for m, count in enumerate([4, 0, 6]):
        path = tmp_path / "shards" / f"part-{m}"
        with loaderx.zrecord.DenseStore(path, np.int32, (3,), codec="raw") as s:
            if count:
                s.append(np.full((count, 3), m, np.int32))
        paths.append(path)
    return paths


def test_create_info_stats_verify(cli, tmp_path, shards):
    done = cli("set", "create", "--json", "train.lxset",
               *[os.path.relpath(p, tmp_path) for p in shards])
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout) == {
        "manifest": "train.lxset", "members": 3, "records": 10}
    info = json.loads(cli("info", "--json", "train.lxset").stdout)
    assert info["set"] is True and info["records"] == 10
    assert info["item_shape"] == [3] and info["dtype"] == "<i4"
    assert [m["first"] for m in info["member_stores"]] == [0, 4, 4]
    stats = json.loads(cli("stats", "--json", "train.lxset").stdout)
    assert stats["records"] == 10 and stats["live_bytes"] == 120
    verify = cli("verify", "--json", "train.lxset")
    assert verify.returncode == EXIT_OK
    assert json.loads(verify.stdout)["ok"] is True
    # Again, refused: the manifest exists.
    again = cli("set", "create", "train.lxset", os.fspath(shards[0]))
    assert again.returncode != EXIT_OK and b"exists" in again.stderr


def test_damage_and_changes_name_the_member(cli, tmp_path, shards):
    assert cli("set", "create", "s.lxset",
               *[os.path.relpath(p, tmp_path) for p in shards]).returncode == 0
    chunk = shards[2] / "0.chunk"
    data = bytearray(chunk.read_bytes())
    data[12] ^= 0xFF  # Record 1 of member 2: set position 5.
    chunk.write_bytes(bytes(data))
    verify = cli("verify", "--json", "s.lxset")
    assert verify.returncode == EXIT_DAMAGED
    report = json.loads(verify.stdout)
    assert report["damaged"] == [5]
    assert "member 2" in report["problems"][0]
    with loaderx.zrecord.DenseStore(shards[0]) as s:
        s.append(np.zeros((1, 3), np.int32))
    info = cli("info", "s.lxset")
    assert info.returncode != EXIT_OK
    assert b"member 0" in info.stderr and b"changed after the set" in info.stderr


def test_head_cat_and_export_read_across_members(cli, tmp_path, shards):
    assert cli("set", "create", "s.lxset",
               *[os.path.relpath(p, tmp_path) for p in shards]).returncode == 0
    head = json.loads(cli("head", "-n", "6", "--json", "s.lxset").stdout)
    assert [r["values"] for r in head["records"]] == (
        [[0, 0, 0]] * 4 + [[2, 2, 2]] * 2)
    cat = json.loads(cli("cat", "--json", "s.lxset", "3:5").stdout)
    assert [r["index"] for r in cat["records"]] == [3, 4]
    assert [r["values"][0] for r in cat["records"]] == [0, 2]
    assert cli("export", "s.lxset", "all.npy").returncode == EXIT_OK
    exported = np.load(tmp_path / "all.npy")
    assert exported.shape == (10, 3)
    assert exported[:, 0].tolist() == [0] * 4 + [2] * 6
