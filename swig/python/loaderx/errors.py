"""The stores' errors: loaderx 1.7.7's `ZrecordError` and its codes.

Every error the engine reports carries the reference's code (see
`include/loaderx/error_code.h`). The exception raised for it is a
`ZrecordError` with that `.code` and, where Python has an idiomatic
exception for the case, an instance of that one too, so both kinds of
`except` work:

    code  reference message                      also
     -1   out of memory                          MemoryError
     -2   file I/O failed                        OSError (PermissionError)
     -3   index out of range                     IndexError
     -4   record exceeds the ... byte limit      ValueError
     -5   store is full
     -7   stored record failed to decode
     -8   invalid or unsupported zrecord store format
          ... a stored type identity whose keys   ValueError (TypeIdentityError)
              are not exactly 1.7.7's
     -9   zstd dictionary training failed ...
    -10   zstd dictionary is already installed ...
    -11   store not found                        FileNotFoundError
    -12   store already exists                   FileExistsError
    -13   native store kind mismatch             ValueError
    -14   store is busy (...)                    BlockingIOError

Errors without a store code are plain Python exceptions: bad arguments are
ValueError, an unknown codec (or other plugin) name is KeyError, a closed
store, a write through a read-only one or a wrong kind of file is
RuntimeError, an unimplemented operation NotImplementedError.

`from_native` is this table; the binding's error handler calls it for every
failed native call.
"""

from typing import Any

from loaderx import loaderx_native as _native

__all__ = [
    "ZrecordError",
    "IndexOutOfRangeError",
    "RecordTooLargeError",
    "StoreNotFoundError",
    "StoreExistsError",
    "KindMismatchError",
    "TypeIdentityError",
    "StoreBusyError",
    "StoreIOError",
    "StorePermissionError",
    "StoreMemoryError",
    "from_native",
]

# The reference's codes that carry a message of their own.
_KNOWN_CODES = range(-14, 0)


class ZrecordError(RuntimeError):
    """A store error with the reference's negative `code`. `str()` is the
    reference's message for the code, then what happened, when known."""

    def __init__(self, code: int, detail: str | None = None) -> None:
        if code in _KNOWN_CODES:
            message = _native.error_code_message(code)
        else:
            message = f"unknown zrecord error {code}"
        super().__init__(f"{message}: {detail}" if detail else message)
        self.code = code
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.detail))


class IndexOutOfRangeError(ZrecordError, IndexError):
    """-3: an index at or past the end (or before the start) of a store."""


class RecordTooLargeError(ZrecordError, ValueError):
    """-4: a record over 2^31 bytes."""


class StoreNotFoundError(ZrecordError, FileNotFoundError):
    """-11: no store (or file) at the path."""


class StoreExistsError(ZrecordError, FileExistsError):
    """-12: a store, or files that are not a store's, are already there."""


class KindMismatchError(ZrecordError, ValueError):
    """-13: a ragged store opened as dense, or the other way round."""


class TypeIdentityError(ZrecordError, ValueError):
    """-8: a stored type identity with other keys than 1.7.7 writes
    (`dtype`, and `item_shape` for a dense store); the message names the
    "type identity fields". 1.7.7 raises ValueError here."""


class StoreBusyError(ZrecordError, BlockingIOError):
    """-14: another handle or process holds the store's lock."""


class StoreIOError(ZrecordError, OSError):
    """-2: the filesystem failed."""


class StorePermissionError(ZrecordError, PermissionError):
    """-2: the filesystem refused access."""


class StoreMemoryError(ZrecordError, MemoryError):
    """-1: memory ran out."""


_BY_CODE = {
    -1: StoreMemoryError,
    -2: StoreIOError,
    -3: IndexOutOfRangeError,
    -4: RecordTooLargeError,
    -11: StoreNotFoundError,
    -12: StoreExistsError,
    -13: KindMismatchError,
    -14: StoreBusyError,
}

# absl::StatusCode values, for errors without a store code.
_INVALID_ARGUMENT = 3
_PERMISSION_DENIED = 7
_UNIMPLEMENTED = 12
_BY_STATUS = {
    _INVALID_ARGUMENT: ValueError,
    _UNIMPLEMENTED: NotImplementedError,
}

# What the engine says of a type identity whose keys are not 1.7.7's.
_IDENTITY_FIELDS = "type identity fields"

# loaderx's own code for an unknown plugin name (a codec, a VFS, ...).
_UNKNOWN_NAME = 1


def from_native(status_code: int, code: int, message: str) -> Exception:
    """The exception for a failed native call: its absl status code, the
    reference's store code (0 when none applies) and its message."""
    if code == _UNKNOWN_NAME:
        return KeyError(message)
    if code < 0:
        cls = _BY_CODE.get(code, ZrecordError)
        # The engine's bad-format error for an identity map with other keys
        # names them with this phrase (plugins/owner/msgpack_identity.cc).
        if code == -8 and _IDENTITY_FIELDS in message:
            cls = TypeIdentityError
        if code == -2 and status_code == _PERMISSION_DENIED:
            cls = StorePermissionError
        return cls(code, message)
    return _BY_STATUS.get(status_code, RuntimeError)(message)
