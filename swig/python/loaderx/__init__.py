"""loaderx: an embedded record store and data loader for AI training.

The store, sampler and loader modules (`loaderx.zrecord`, `loaderx.zsampler`,
`loaderx.dataloader`) arrive with the engine; today the package exposes the
plugin registries and the filesystems (`loaderx.vfs`).
"""

from loaderx.vfs import Vfs, registered_plugins

__all__ = ["Vfs", "registered_plugins"]
