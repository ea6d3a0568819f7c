"""Filesystems: the VFS plugins the engine runs on, found by name.

    fs = Vfs("memory")            # or "posix", "fault", or a user's own
    fs.create_directory("/data")
    fs.write_file("/data/x", b"bytes")
    with fs.lock("/data/x"):      # BlockingIOError if held elsewhere
        ...

Errors are Python's own: FileNotFoundError, FileExistsError, ValueError,
IndexError, BlockingIOError (a lock held by another handle or process), and
OSError for I/O failures.
"""

import os
from typing import Any

from loaderx import loaderx_native as _native
from loaderx._typing import StrPath


def registered_plugins(kind: str) -> list[str]:
    """Names of the registered plugins of `kind`: "vfs", "codec" or "typed_owner"."""
    return list(_native.RegisteredPlugins(kind))


class Vfs:
    """A registered filesystem. Paths are `str` or path-like."""

    def __init__(self, name: str = "posix") -> None:
        self._fs = _native.Filesystem(name)

    @property
    def name(self) -> str:
        """The name this filesystem is registered under ("posix", "memory", ...)."""
        return self._fs.name()

    def exists(self, path: StrPath) -> bool:
        """Whether a file or directory exists at `path`."""
        return self._fs.exists(os.fspath(path))

    def list(self, path: StrPath) -> list[str]:
        """The names of directory `path`'s entries, files and directories alike, sorted."""
        return list(self._fs.list(os.fspath(path)))

    def create_directory(self, path: StrPath) -> None:
        """Creates one directory (its parent must exist); FileExistsError if `path` exists."""
        self._fs.create_directory(os.fspath(path))

    def remove_directory(self, path: StrPath) -> None:
        """Removes an empty directory."""
        self._fs.remove_directory(os.fspath(path))

    def remove(self, path: StrPath) -> None:
        """Removes a file; open handles to it stay usable."""
        self._fs.remove(os.fspath(path))

    def rename(self, source: StrPath, destination: StrPath) -> None:
        """Atomically renames a file, replacing `destination` if it is a file."""
        self._fs.rename(os.fspath(source), os.fspath(destination))

    def read_file(self, path: StrPath) -> bytes:
        """The whole file, as bytes."""
        return self._fs.read_file(os.fspath(path))

    def write_file(self, path: StrPath, data: bytes | bytearray | memoryview,
                   sync: bool = False) -> None:
        """Creates or replaces the file with `data` (any bytes-like object)."""
        self._fs.write_file(os.fspath(path), data, sync)

    def lock(self, path: StrPath) -> _native.FileLock:
        """Takes the file's exclusive lock, creating the file if needed.

        Returns a lock to use as a context manager (or `close()`);
        BlockingIOError if another handle or process holds it.
        """
        return self._fs.lock(os.fspath(path))

    def __reduce__(self) -> tuple[Any, ...]:
        # By name: unpickling creates the registered filesystem of that
        # name, which for an in-memory one is a new, empty filesystem.
        return (Vfs, (self.name,))

    def __repr__(self) -> str:
        return f"Vfs({self.name!r})"
