"""loaderx for PyTorch: an `IterableDataset` over loaderx's data loader,
one per rank of a data-parallel job.

    import torch.distributed as dist
    from loaderx.torch import from_stores

    dist.init_process_group("gloo")           # or nccl; torchrun sets rank
    dataset = from_stores({"image": "/data/images", "label": "/data/labels"},
                          batch_size=1024, seed=42)   # the GLOBAL batch
    for step, batch in zip(range(start, end), dataset):
        images, labels = batch["image"], batch["label"]   # torch tensors
        ...
    torch.save(dataset.state_dict(), "ckpt.pt")     # six numbers

`LoaderxDataset(streams, ...)` takes the loader's arguments (`streams` a
dict of stores, `batch_size` the global batch, `mode`, `seed`,
`prefetch_size`, `transform`) and `rank` / `world_size`: when omitted they
come from `torch.distributed` if it is initialised, else 0 and 1. Rank r
yields its contiguous slice (batch_size // world_size records) of every
global batch; the ranks' slices together are exactly the single-process
batch, with no coordination, shared memory or barrier between ranks.
`state_dict()` / `load_state_dict()` are the loader's (`DataLoader`): the
same on every rank, resumable at any world size that divides the batch,
and a state of other data, another batch size, mode or seed raises
ValueError.

Each item is one step's batch, a dict {name: value}: a dense stream's value
is one tensor of shape (records, *item_shape) that shares memory with the
native batch buffer (`torch.from_numpy`, no copy; the tensor keeps the
buffer alive), a ragged stream's a list of such tensors. Iteration never
ends unless `num_steps` is given; iterating again continues from the
current step. Use it directly, or in `torch.utils.data.DataLoader(dataset,
batch_size=None, num_workers=0)` (batches are already made, on loaderx's
native threads; torch's worker processes would only copy them).
"""

from collections.abc import Callable, Iterator, Mapping
from typing import Any, SupportsIndex

import numpy as np
import torch
import torch.utils.data

from loaderx.dataloader import DataLoader
from loaderx.typed_store import TypedStore

__all__ = ["LoaderxDataset", "from_stores", "distributed_rank_and_world"]


def distributed_rank_and_world() -> tuple[int, int]:
    """(rank, world size) from `torch.distributed` when it is initialised,
    else (0, 1)."""
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _tensor(value: Any) -> Any:
    """A numpy array as a tensor on the same memory; lists element-wise;
    anything else (a transform's own output) as it is."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    if isinstance(value, list):
        return [_tensor(item) for item in value]
    return value


class LoaderxDataset(torch.utils.data.IterableDataset):
    """One rank's endless sequence of batches (see the module's text)."""

    def __init__(self, streams: Mapping[str, Any], batch_size: int = 256,
                 mode: int = 2, seed: int = 42, prefetch_size: int = 4,
                 transform: Callable[[dict[str, Any]], Any] | None = None,
                 *, rank: SupportsIndex | None = None,
                 world_size: SupportsIndex | None = None,
                 num_steps: int | None = None) -> None:
        super().__init__()
        default_rank, default_world = distributed_rank_and_world()
        self._loader = DataLoader(
            streams, num_workers=1, batch_size=batch_size,
            prefetch_size=prefetch_size, mode=mode, seed=seed,
            transform=transform,
            rank=default_rank if rank is None else rank,
            world_size=default_world if world_size is None else world_size)
        self._num_steps = num_steps

    @property
    def loader(self) -> DataLoader:
        """The loaderx `DataLoader` underneath (step, seek, sampler)."""
        return self._loader

    @property
    def rank(self) -> int:
        """This dataset's rank in the world."""
        return self._loader.rank

    @property
    def world_size(self) -> int:
        """How many ranks share each global batch."""
        return self._loader.world_size

    @property
    def step(self) -> int:
        """The step of the next batch."""
        return self._loader.step

    def __iter__(self) -> Iterator[dict[str, Any]]:
        produced = 0
        while self._num_steps is None or produced < self._num_steps:
            batch = self._loader.next()
            produced += 1
            if isinstance(batch, dict):
                yield {name: _tensor(value) for name, value in batch.items()}
            else:
                yield batch

    def state_dict(self) -> dict[str, int]:
        """The loader's six-number state (`DataLoader.state_dict`)."""
        return self._loader.state_dict()

    def load_state_dict(self, state: Mapping[str, int]) -> None:
        """Continues from a saved state, at any world size that divides
        the batch; ValueError for a state of other data or settings."""
        self._loader.load_state_dict(state)

    def close(self) -> None:
        """Stops the loader; the stores stay open."""
        self._loader.close()


def from_stores(stores: Mapping[str, Any], **options: Any) -> LoaderxDataset:
    """A `LoaderxDataset` over `stores`: each value a loaderx store, or a
    path, opened read-only (many ranks and hosts may read one store at
    once). `options` are `LoaderxDataset`'s."""
    opened = {name: store if not isinstance(store, (str, bytes))
              and hasattr(store, "__len__") else
              TypedStore(store, read_only=True)
              for name, store in stores.items()}
    return LoaderxDataset(opened, **options)
