"""Type aliases that the public API's annotations share."""

import os
from collections.abc import Callable

import numpy.typing as npt

# A filesystem path: a str or any path-like object.
StrPath = str | os.PathLike[str]

# What selects records: an int (negatives count from the end), a slice, a
# sequence of ints, an integer array (uint64 arrays as they are), or a
# boolean mask of the store's length.
RecordKey = slice | npt.ArrayLike

# Told how far `verify` has got: called as `progress(done, total)` with the
# records examined so far and in all; what it returns is ignored.
VerifyProgress = Callable[[int, int], object]
