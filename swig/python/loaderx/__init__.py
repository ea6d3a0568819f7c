"""loaderx: an embedded record store and data loader for AI training.

    from loaderx.zrecord import DenseStore, RaggedStore   # typed stores
    from loaderx.zsampler import Sampler                   # step-based indices
    from loaderx.dataloader import DataLoader              # endless loader
    from loaderx.vfs import Vfs, registered_plugins        # filesystems

See each module's documentation.
"""

from loaderx.vfs import Vfs, registered_plugins

__all__ = ["Vfs", "registered_plugins"]
