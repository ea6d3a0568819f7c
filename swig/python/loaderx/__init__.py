"""loaderx: an embedded record store and data loader for AI training.

    from loaderx.zrecord import DenseStore, RaggedStore   # typed stores
    from loaderx.utils import train_dict                   # zstd dictionaries
    from loaderx.zsampler import Sampler                   # step-based indices
    from loaderx.dataloader import DataLoader              # endless loader
    from loaderx.vfs import Vfs, registered_plugins        # filesystems
    from loaderx.typed_store import TypedStore             # any owner's store
    loaderx.set_num_threads(n)                             # the shared pool

See each module's documentation. loaderx 1.8 is a drop-in for loaderx
1.7.7: the same files, sampler sequences and Python API (README:
"Compatibility with loaderx 1.7.7").
"""

__version__ = "1.8.0"

from loaderx import loaderx_native as _native
from loaderx.vfs import Vfs, registered_plugins

__all__ = ["Vfs", "registered_plugins", "set_num_threads", "num_threads"]


def set_num_threads(threads: int) -> None:
    """Sizes the thread pool that every store's compression and gathers
    share, for stores opened afterwards: `threads` (at least 1) is how many
    threads one call may use, the calling thread included. The default is
    one per core. Stores already open keep the pool they have."""
    _native.set_num_threads(threads)


def num_threads() -> int:
    """How many threads a call on the shared pool may use now."""
    return int(_native.num_threads())
