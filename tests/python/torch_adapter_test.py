"""loaderx.torch in one process: tensors on the native batch buffers (no
copy), rank and world size explicit or from torch.distributed, stores
given as paths opened read-only, the ranks' slices concatenated equal the
single-process batch, state_dict round trips, num_steps bounds iteration,
and torch's own DataLoader passes batches through."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from loaderx.torch import LoaderxDataset, distributed_rank_and_world, from_stores  # noqa: E402
from loaderx.zrecord import DenseStore, RaggedStore  # noqa: E402
from loaderx.zsampler import Sampler  # noqa: E402

N = 150


@pytest.fixture
def paths(tmp_path):
    with DenseStore(tmp_path / "ids", np.int64, (2,)) as s:
        s.append(np.stack([np.arange(N), 2 * np.arange(N)], axis=1))
    with RaggedStore(tmp_path / "tokens", np.int16) as s:
        s.append([np.full(i % 3 + 1, i, np.int16) for i in range(N)])
    return {"ids": tmp_path / "ids", "tokens": tmp_path / "tokens"}


def test_tensors_share_the_batch_buffers(paths):
    dataset = from_stores(paths, batch_size=8, mode=0, num_steps=1)
    assert dataset.loader.sampler.length == N
    (batch,) = list(dataset)
    ids, tokens = batch["ids"], batch["tokens"]
    assert isinstance(ids, torch.Tensor) and ids.shape == (8, 2)
    assert ids.dtype == torch.int64
    assert ids[:, 0].tolist() == list(range(8))
    assert [t.tolist() for t in tokens] == [[i] * (i % 3 + 1) for i in range(8)]
    # A view of the native buffer: page-aligned, as loaderx lays it out.
    assert ids.data_ptr() % 4096 == 0
    ids[0, 0] = 99  # Writable in place.
    assert ids[0, 0].item() == 99
    dataset.close()


def test_ranks_concatenate_to_the_single_process_batch(paths):
    assert distributed_rank_and_world() == (0, 1)
    ranks = [from_stores(paths, batch_size=12, mode=2, seed=4, rank=r,
                         world_size=3, num_steps=25) for r in range(3)]
    assert [d.rank for d in ranks] == [0, 1, 2]
    assert all(d.world_size == 3 for d in ranks)
    single = Sampler(N, 12, 2, seed=4)
    for batches in zip(*ranks):
        got = torch.cat([b["ids"][:, 0] for b in batches]).tolist()
        assert got == single.next().tolist()
    for d in ranks:
        d.close()


def test_state_dict_resumes_at_another_world_size(paths):
    first = from_stores(paths, batch_size=12, mode=1, rank=1, world_size=4,
                        num_steps=5)
    list(first)
    state = first.state_dict()
    assert state["step"] == 5 and state["batch_size"] == 12
    resumed = from_stores(paths, batch_size=12, mode=1, world_size=2,
                          num_steps=1)
    resumed.load_state_dict(state)
    (batch,) = list(resumed)
    assert batch["ids"][:, 0].tolist() == Sampler(N, 12, 1).batch(5)[:6].tolist()
    with pytest.raises(ValueError, match="global batch size"):
        from_stores(paths, batch_size=24).load_state_dict(state)


def test_torch_dataloader_passes_batches_through(paths):
    stores = {"ids": DenseStore(paths["ids"], read_only=True)}
    dataset = LoaderxDataset(stores, batch_size=4, mode=0, num_steps=3)
    loader = torch.utils.data.DataLoader(dataset, batch_size=None)
    steps = [batch["ids"][:, 0].tolist() for batch in loader]
    assert steps == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    dataset.close()
    stores["ids"].close()
