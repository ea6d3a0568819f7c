"""The `loaderx` command line, run as users run it: the installed binary
(//tools/cli:loaderx) and `python -m loaderx` (the same C++ code through the
Python module), each as a child process with its own stdout, stderr and exit
code. JSON outputs are parsed; files are compared byte for byte."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import loaderx.utils
import loaderx.zrecord

EXIT_OK, EXIT_DAMAGED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _binary():
    runfiles = pathlib.Path(os.environ["TEST_SRCDIR"])
    return str(runfiles / os.environ["TEST_WORKSPACE"] / "tools/cli/loaderx")


RUNNERS = {
    "binary": lambda: [_binary()],
    "python": lambda: [sys.executable, "-m", "loaderx"],
}


@pytest.fixture(params=sorted(RUNNERS))
def cli(request, tmp_path):
    """Runs one command line in `tmp_path`; returns the CompletedProcess."""
    prefix = RUNNERS[request.param]()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def run(*args, check_code=None, **kwargs):
        done = subprocess.run(prefix + [str(a) for a in args], cwd=tmp_path,
                              env=env, capture_output=True, timeout=300,
                              **kwargs)
        if check_code is not None:
            assert done.returncode == check_code, (done.stdout, done.stderr)
        return done

    run.prefix, run.env, run.runner = prefix, env, request.param
    return run


def _json(done):
    return json.loads(done.stdout)


def _array():
    """Records with structure a dictionary can learn from."""
    rng = np.random.default_rng(7)
    base = rng.integers(0, 50, size=(1, 32)).astype("<f4")
    return (base + rng.integers(0, 3, size=(3000, 32))).astype("<f4")


def test_round_trip_npy_info_recode_verify_export(cli, tmp_path):
    np.save(tmp_path / "input.npy", _array())
    cli("import", "input.npy", "store", check_code=EXIT_OK)

    info = _json(cli("info", "--json", "store", check_code=EXIT_OK))
    assert info["kind"] == "dense"
    assert info["dtype"] == "<f4"
    assert info["item_shape"] == [32]
    assert info["record_bytes"] == 128
    assert info["codec"] == "zstd"
    assert info["records"] == 3000
    assert info["chunks"] == 1
    assert info["dictionary_bytes"] is None

    cli("recode", "store", "dict_store", "--codec", "zstd_dict", "--tier",
        "fast", check_code=EXIT_OK)
    recoded = _json(cli("info", "--json", "dict_store", check_code=EXIT_OK))
    assert recoded["codec"] == "zstd_dict"
    assert recoded["records"] == 3000
    assert 0 < recoded["dictionary_bytes"] <= 32 << 10
    # The source is untouched.
    assert _json(cli("info", "--json", "store"))["codec"] == "zstd"

    report = _json(cli("verify", "--json", "dict_store", check_code=EXIT_OK))
    assert report["ok"] is True
    assert report["records"] == report["verified"] == 3000
    assert report["damaged"] == []

    cli("export", "dict_store", "output.npy", check_code=EXIT_OK)
    assert (tmp_path / "output.npy").read_bytes() == \
        (tmp_path / "input.npy").read_bytes()


def test_recode_trains_the_dictionary_python_trains(cli, tmp_path):
    np.save(tmp_path / "input.npy", _array())
    cli("import", "input.npy", "store", check_code=EXIT_OK)
    cli("recode", "store", "dict_store", "--codec", "zstd_dict",
        check_code=EXIT_OK)
    store = loaderx.zrecord.DenseStore(str(tmp_path / "store"))
    expected = loaderx.utils.train_dict(store)  # Tier "balanced".
    del store
    recoded = loaderx.zrecord.DenseStore(str(tmp_path / "dict_store"))
    del recoded
    assert (tmp_path / "dict_store" / "dict.zr").read_bytes() == expected


def _damage_record(store_dir, record):
    """Flips a byte of `record` in the chunk file of a raw store."""
    chunk = store_dir / "0.chunk"
    data = bytearray(chunk.read_bytes())
    at = data.find(record)
    assert at >= 0 and data.find(record, at + 1) < 0
    data[at + len(record) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))


def test_verify_reports_a_damaged_record_by_index(cli, tmp_path):
    records = np.random.default_rng(3).integers(0, 256, size=(20, 64),
                                                dtype=np.uint8)
    np.save(tmp_path / "input.npy", records)
    cli("import", "input.npy", "store", "--codec", "raw", check_code=EXIT_OK)
    _damage_record(tmp_path / "store", records[13].tobytes())

    done = cli("verify", "--json", "store", check_code=EXIT_DAMAGED)
    report = _json(done)
    assert report["ok"] is False
    assert report["damaged"] == [13]
    assert report["verified"] == 19
    assert b"1 of 20 records are damaged" in done.stderr

    text = cli("verify", "store", check_code=EXIT_DAMAGED)
    assert b"damaged records: [13]" in text.stdout
    # Reading the damaged record fails as damage; the others read.
    cli("cat", "store", "13", check_code=EXIT_DAMAGED)
    cli("cat", "store", "12", "--raw", check_code=EXIT_OK)


def test_verify_fails_on_a_shrink_until_accepted(cli, tmp_path):
    records = np.arange(20 * 8, dtype=np.uint8).reshape(20, 8)
    np.save(tmp_path / "input.npy", records)
    cli("import", "input.npy", "store", "--codec", "raw", check_code=EXIT_OK)
    # What loaderx 1.7.7's delete of the last 5 records (or damage) leaves:
    # meta.zr's u64 length at offset 14 made smaller.
    meta = tmp_path / "store" / "meta.zr"
    data = bytearray(meta.read_bytes())
    data[14:22] = (15).to_bytes(8, "little")
    meta.write_bytes(bytes(data))

    done = cli("verify", "--json", "store", check_code=EXIT_DAMAGED)
    report = _json(done)
    assert report["ok"] is False
    assert report["damaged"] == []
    assert report["removed_records"] == 5
    assert "5 records past the length were removed" in (
        report["metadata_problems"][0])
    text = cli("verify", "store", check_code=EXIT_DAMAGED)
    assert b"metadata problem: 5 records past the length" in text.stdout
    assert b"--accept-shrink" in text.stderr

    accepted = cli("verify", "--accept-shrink", "store", check_code=EXIT_OK)
    assert b"accepted" in accepted.stdout
    clean = _json(cli("verify", "--json", "store", check_code=EXIT_OK))
    assert clean["ok"] is True and clean["removed_records"] == 0
    assert clean["records"] == 15


def test_compact_dry_run_states_the_space_it_needs(cli, tmp_path):
    records = np.arange(20 * 8, dtype=np.uint8).reshape(20, 8)
    np.save(tmp_path / "input.npy", records)
    cli("import", "input.npy", "store", "--codec", "raw", check_code=EXIT_OK)
    # The last two records' bytes unreferenced (meta.zr's length 20 -> 18).
    meta = tmp_path / "store" / "meta.zr"
    data = bytearray(meta.read_bytes())
    data[14:22] = (18).to_bytes(8, "little")
    meta.write_bytes(bytes(data))
    estimate = _json(cli("compact", "--dry-run", "--json", "store",
                         check_code=EXIT_OK))
    assert estimate["reclaimed_bytes"] == 16
    assert estimate["needed_bytes"] == 0
    assert estimate["fits"] is True
    assert isinstance(estimate["available_bytes"], int)
    text = cli("compact", "--dry-run", "store", check_code=EXIT_OK)
    assert b"give back 16 bytes" in text.stdout
    # Nothing was changed.
    assert _json(cli("stats", "--json", "store"))["reclaimable_bytes"] == 16


def test_stats_head_and_cat_json(cli, tmp_path):
    array = np.arange(40, dtype="<i8").reshape(10, 4)
    np.save(tmp_path / "input.npy", array)
    cli("import", "input.npy", "store", check_code=EXIT_OK)
    stats = _json(cli("stats", "--json", "store", check_code=EXIT_OK))
    assert stats["records"] == 10
    assert stats["reclaimable_bytes"] == 0
    assert stats["live_bytes"] == stats["chunk_bytes"] > 0

    head = _json(cli("head", "-n", "3", "--json", "store", check_code=EXIT_OK))
    assert head["dtype"] == "<i8"
    assert [r["index"] for r in head["records"]] == [0, 1, 2]
    assert head["records"][2]["values"] == [8, 9, 10, 11]
    assert head["records"][2]["shape"] == [4]

    cat = _json(cli("cat", "store", "7:", "2", "--json", check_code=EXIT_OK))
    assert [r["index"] for r in cat["records"]] == [7, 8, 9, 2]
    raw = cli("cat", "store", "--raw", check_code=EXIT_OK).stdout
    assert raw == array.tobytes()
    text = cli("head", "store", "-n", "1", check_code=EXIT_OK).stdout
    assert text.startswith(b"0\tshape (4,)\t32 bytes\t[0, 1, 2, 3]")
    cli("cat", "store", "10", check_code=EXIT_USAGE)

    compacted = _json(cli("compact", "--json", "store", check_code=EXIT_OK))
    assert compacted["records"] == 10
    assert compacted["reclaimed_bytes"] == 0


def test_npz_arrays_and_selection(cli, tmp_path):
    x = np.arange(12, dtype="<u2").reshape(6, 2)
    y = np.ones((3, 2, 2), dtype="<f8")
    np.savez_compressed(tmp_path / "both.npz", x=x, y=y)
    done = cli("import", "both.npz", "stores", "--json", check_code=EXIT_OK)
    assert _json(done)["stores"] == ["stores/x", "stores/y"]
    assert _json(cli("info", "--json", "stores/y"))["item_shape"] == [2, 2]
    cli("export", "stores/x", "x.npy", check_code=EXIT_OK)
    assert np.array_equal(np.load(tmp_path / "x.npy"), x)

    cli("import", "both.npz", "only_y", "--array", "y", check_code=EXIT_OK)
    assert _json(cli("info", "--json", "only_y"))["records"] == 3
    missing = cli("import", "both.npz", "z", "--array", "z",
                  check_code=EXIT_USAGE)
    assert b"has no array 'z'; it has: x, y" in missing.stderr
    assert not (tmp_path / "z").exists()


def test_directory_import_and_ragged_export(cli, tmp_path):
    files = tmp_path / "files"
    (files / "sub").mkdir(parents=True)
    contents = {"b.txt": b"second", "a.txt": b"first!", "sub/c.bin": b"\x00\x01"}
    for name, content in contents.items():
        (files / name).write_bytes(content)
    cli("import", "files", "store", check_code=EXIT_OK)
    info = _json(cli("info", "--json", "store", check_code=EXIT_OK))
    assert (info["kind"], info["dtype"], info["records"]) == ("ragged", "|u1", 3)
    raw = cli("cat", "store", "--raw", check_code=EXIT_OK).stdout
    assert raw == b"first!" + b"second" + b"\x00\x01"  # By relative path.

    refused = cli("export", "store", "out.npy", check_code=EXIT_USAGE)
    assert b"record 2 is (2,)" in refused.stderr
    assert b"--per-record" in refused.stderr
    assert not (tmp_path / "out.npy").exists()
    cli("export", "store", "out", "--per-record", check_code=EXIT_OK)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == \
        ["000000.npy", "000001.npy", "000002.npy"]
    assert np.load(tmp_path / "out" / "000002.npy").tobytes() == b"\x00\x01"

    (files / "empty").write_bytes(b"")
    empty = cli("import", "files", "store2", check_code=EXIT_USAGE)
    assert b"is empty" in empty.stderr
    assert not (tmp_path / "store2").exists()


def test_bad_input_is_a_usage_error_and_changes_nothing(cli, tmp_path):
    missing = cli("info", "nowhere", check_code=EXIT_USAGE)
    assert b"no store at nowhere" in missing.stderr
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("not a store")
    foreign = cli("verify", "foreign", check_code=EXIT_USAGE)
    assert b"foreign is not a loaderx store" in foreign.stderr
    assert sorted(os.listdir(tmp_path / "foreign")) == ["notes.txt"]

    usage = cli("recode", "only_one", check_code=EXIT_USAGE)
    assert b"usage:" in usage.stderr
    assert b"unknown command" in cli("frobnicate", check_code=EXIT_USAGE).stderr
    assert b"unknown option '--bogus'" in cli(
        "info", "--bogus", "x", check_code=EXIT_USAGE).stderr
    cli(check_code=EXIT_USAGE)

    header = b"{'descr': 1, 'fortran_order': False, 'shape': (2,), }\n"
    (tmp_path / "garbage.npy").write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    garbage = cli("import", "garbage.npy", "store", check_code=EXIT_USAGE)
    assert b"not a valid .npy file: 'descr' is not a string" in garbage.stderr
    (tmp_path / "short.npy").write_bytes(b"\x93NUMPY\x01\x00\x40\x00{'descr'")
    short = cli("import", "short.npy", "store", check_code=EXIT_USAGE)
    assert b"short.npy is truncated" in short.stderr
    assert not (tmp_path / "store").exists()

    np.save(tmp_path / "input.npy", np.zeros((4, 2), dtype="<f4"))
    cli("import", "input.npy", "store", check_code=EXIT_OK)
    before = sorted(os.listdir(tmp_path / "store"))
    exists = cli("import", "input.npy", "store", check_code=EXIT_USAGE)
    assert b"already exists" in exists.stderr
    assert sorted(os.listdir(tmp_path / "store")) == before
    bad_tier = cli("recode", "store", "other", "--codec", "zstd_dict",
                   "--tier", "huge", check_code=EXIT_USAGE)
    assert b"unknown dictionary tier 'huge'" in bad_tier.stderr
    assert not (tmp_path / "other").exists()
    # Nothing but what the commands made is left behind.
    assert sorted(os.listdir(tmp_path)) == ["foreign", "garbage.npy",
                                            "input.npy", "short.npy", "store"]


def test_every_command_has_help(cli):
    listing = cli("--help", check_code=EXIT_OK).stdout.decode()
    commands = ["info", "stats", "verify", "compact", "recode", "import",
                "export", "head", "cat"]
    for command in commands:
        assert f"  {command} " in listing
        text = cli(command, "--help", check_code=EXIT_OK).stdout.decode()
        assert text.startswith("usage: ")
        assert f" {command} " in text.splitlines()[0]
    assert "--json" in cli("info", "--help").stdout.decode()


@pytest.mark.parametrize("command", ["recode", "import", "export"])
def test_interrupt_leaves_no_destination(cli, tmp_path, command):
    np.save(tmp_path / "input.npy", _array())
    cli("import", "input.npy", "store", check_code=EXIT_OK)
    source_files = {p.name: p.read_bytes() for p in (tmp_path / "store").iterdir()}
    args = {"recode": ["recode", "store", "dest", "--codec", "raw"],
            "import": ["import", "input.npy", "dest"],
            "export": ["export", "store", "dest"]}[command]
    # The test hook makes every batch wait, so the signal lands mid-run.
    env = dict(cli.env, LOADERX_CLI_TEST_BATCH_DELAY_MS="300")
    child = subprocess.Popen(cli.prefix + args, cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not any(p.name.startswith(".dest.") for p in tmp_path.iterdir()):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == EXIT_INTERRUPTED, stderr
    assert b"interrupted by SIGINT" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.npy", "store"]
    assert {p.name: p.read_bytes()
            for p in (tmp_path / "store").iterdir()} == source_files
