"""The Python binding over the real native build: plugins found by name,
files round-tripped through each filesystem, and native errors arriving as
Python's own exceptions."""

import os
import subprocess
import sys
import textwrap

import pytest

import loaderx
from loaderx import Vfs, registered_plugins


def test_registered_plugins_are_listed_by_kind():
    assert {"posix", "memory", "fault"} <= set(registered_plugins("vfs"))
    assert "raw" in registered_plugins("codec")
    assert isinstance(registered_plugins("typed_owner"), list)


def test_unknown_plugin_kind_is_value_error():
    with pytest.raises(ValueError, match="unknown plugin kind"):
        registered_plugins("scheduler")


def test_unknown_vfs_name_is_value_error_listing_the_registered_ones():
    with pytest.raises(ValueError, match="posix"):
        Vfs("nfs")


@pytest.fixture(params=["memory", "posix", "fault"])
def fs_and_root(request, tmp_path):
    fs = Vfs(request.param)
    if request.param == "posix":
        root = str(tmp_path / "root")
    else:
        root = "/root"
    fs.create_directory(root)
    return fs, root


def test_bytes_round_trip(fs_and_root):
    fs, root = fs_and_root
    payload = bytes(range(256)) * 3
    fs.write_file(f"{root}/a", payload)
    assert fs.read_file(f"{root}/a") == payload
    fs.write_file(f"{root}/b", memoryview(b"view"), sync=True)
    assert fs.read_file(f"{root}/b") == b"view"
    assert fs.list(root) == ["a", "b"]


def test_directory_and_rename_operations(fs_and_root):
    fs, root = fs_and_root
    fs.create_directory(f"{root}/d")
    fs.write_file(f"{root}/d/x", b"1")
    fs.rename(f"{root}/d/x", f"{root}/d/y")
    assert not fs.exists(f"{root}/d/x")
    assert fs.read_file(f"{root}/d/y") == b"1"
    fs.remove(f"{root}/d/y")
    fs.remove_directory(f"{root}/d")
    assert not fs.exists(f"{root}/d")


def test_missing_file_is_file_not_found(fs_and_root):
    fs, root = fs_and_root
    with pytest.raises(FileNotFoundError, match="missing"):
        fs.read_file(f"{root}/missing")
    with pytest.raises(FileNotFoundError):
        fs.remove(f"{root}/missing")


def test_existing_directory_is_file_exists(fs_and_root):
    fs, root = fs_and_root
    with pytest.raises(FileExistsError):
        fs.create_directory(root)


def test_removing_a_non_empty_directory_is_runtime_error(fs_and_root):
    fs, root = fs_and_root
    fs.write_file(f"{root}/f", b"x")
    with pytest.raises(RuntimeError, match="not empty"):
        fs.remove_directory(root)
    assert fs.exists(f"{root}/f")


def test_second_lock_is_blocking_io_error_until_released(fs_and_root):
    fs, root = fs_and_root
    with fs.lock(f"{root}/store.lock") as held:
        assert held.held()
        with pytest.raises(BlockingIOError, match="busy"):
            fs.lock(f"{root}/store.lock")
    assert not held.held()
    second = fs.lock(f"{root}/store.lock")
    second.close()


def test_lock_excludes_another_process(tmp_path):
    fs = Vfs("posix")
    path = str(tmp_path / "store.lock")
    child = textwrap.dedent(f"""
        import loaderx
        try:
            loaderx.Vfs("posix").lock({path!r})
        except BlockingIOError:
            raise SystemExit(0)
        raise SystemExit(1)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    with fs.lock(path):
        assert subprocess.run([sys.executable, "-c", child], env=env).returncode == 0
    assert subprocess.run([sys.executable, "-c", child], env=env).returncode == 1


def test_path_like_arguments(tmp_path):
    fs = Vfs("posix")
    fs.write_file(tmp_path / "p", b"path-like")
    assert fs.read_file(tmp_path / "p") == b"path-like"


def test_non_bytes_data_is_rejected(fs_and_root):
    fs, root = fs_and_root
    with pytest.raises(TypeError):
        fs.write_file(f"{root}/t", 12345)
    assert not fs.exists(f"{root}/t")


def test_package_exports():
    assert loaderx.Vfs is Vfs
    assert repr(Vfs("memory")) == "Vfs('memory')"
