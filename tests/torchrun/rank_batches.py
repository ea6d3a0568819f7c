"""One rank of a torchrun job (gloo, CPU) reading loaderx stores through
`loaderx.torch`: at every step the all-gather of the ranks' sample ids,
in rank order, must equal the single-process batch of that step, and
every rank's ragged records must be the records of its ids.

    torchrun --standalone --nproc_per_node=4 rank_batches.py DATA MODE STEPS \
        [--resume STATE] [--save STATE]

DATA holds `ids` (dense int64, record i is i) and `tokens` (ragged int32,
record i is i % 5 + 1 copies of i), written by `make_stores` below.
`--resume` loads a state saved by another run (of any world size) first;
`--save` has rank 0 write the state at the end. Exits non-zero on the
first mismatch, naming the step and rank.
"""

import argparse
import json
import pathlib
import sys

import numpy as np


def make_stores(data: pathlib.Path, records: int) -> None:
    from loaderx.zrecord import DenseStore, RaggedStore
    with DenseStore(data / "ids", np.int64, ()) as store:
        store.append(np.arange(records, dtype=np.int64))
    with RaggedStore(data / "tokens", np.int32) as store:
        store.append([np.full(i % 5 + 1, i, np.int32) for i in range(records)])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", type=pathlib.Path)
    parser.add_argument("mode", type=int)
    parser.add_argument("steps", type=int)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--resume", type=pathlib.Path)
    parser.add_argument("--save", type=pathlib.Path)
    args = parser.parse_args()

    import torch
    import torch.distributed as dist
    from loaderx.torch import from_stores
    from loaderx.zsampler import Sampler

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    dataset = from_stores({"ids": args.data / "ids",
                           "tokens": args.data / "tokens"},
                          batch_size=args.batch, mode=args.mode, seed=17,
                          num_steps=args.steps)
    assert (dataset.rank, dataset.world_size) == (rank, world)
    if args.resume is not None:
        dataset.load_state_dict(json.loads(args.resume.read_text()))
    first = dataset.step
    single = Sampler(dataset.loader.sampler.length, args.batch, args.mode,
                     seed=17)
    failures = 0
    for offset, batch in enumerate(dataset):
        step = first + offset
        ids = batch["ids"]
        assert isinstance(ids, torch.Tensor) and ids.dtype == torch.int64
        for i, tokens in zip(ids.tolist(), batch["tokens"]):
            if tokens.tolist() != [i] * (i % 5 + 1):
                print(f"rank {rank} step {step}: tokens of {i} are wrong",
                      file=sys.stderr)
                failures += 1
        gathered = [torch.empty_like(ids) for _ in range(world)]
        dist.all_gather(gathered, ids)
        got = torch.cat(gathered).tolist()
        expected = single.batch(step).tolist()
        if got != expected:
            print(f"rank {rank} step {step}: all-gathered {got}, "
                  f"single-process {expected}", file=sys.stderr)
            failures += 1
    total = torch.tensor([failures])
    dist.all_reduce(total)
    if rank == 0 and args.save is not None:
        args.save.write_text(json.dumps(dataset.state_dict()))
    dataset.close()
    dist.destroy_process_group()
    if rank == 0:
        print(f"world {world}: steps {first}..{first + args.steps - 1}, "
              f"{int(total)} mismatches")
    return 1 if int(total) else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make_stores(pathlib.Path(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
