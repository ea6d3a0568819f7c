"""loaderx: an embedded record store and data loader for AI training.

    from loaderx.zrecord import DenseStore, RaggedStore   # typed stores
    from loaderx.utils import train_dict                   # zstd dictionaries
    from loaderx.zsampler import Sampler                   # step-based indices
    from loaderx.dataloader import DataLoader              # endless loader
    from loaderx.vfs import Vfs, registered_plugins        # filesystems

See each module's documentation. loaderx 1.8 is a drop-in for loaderx
1.7.7: the same files, sampler sequences and Python API (README:
"Compatibility with loaderx 1.7.7").
"""

__version__ = "1.8.0"

from loaderx.vfs import Vfs, registered_plugins

__all__ = ["Vfs", "registered_plugins"]
