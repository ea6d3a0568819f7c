"""Which codec fits tiny records: for 64 B records (the score's image-like
bytes, which zstd shrinks ~1.8x in large records), each codec's stored
bytes per record byte and its gather rate, against the raw store's in the
same interleaved rounds. Every store is checked against the source records
before timing; zstd_dict's dictionary is trained on the first 8192 records
(the `balanced` tier).

    bazel run --config=opt //tools/bench:bench_tiny_codecs -- [--records 65536]
        [--record-bytes 64] [--batch 4096] [--rounds 7] [--dir /tmp]

Every codec stores each record as its own frame (records are read one by
one), so a frame's fixed overhead weighs on tiny records; see the README's
"Choosing a codec" for what the table says.
"""

import argparse
import os
import shutil
import tempfile
import time

import numpy as np

from loaderx.typed_store import _bytes_of
from loaderx.utils import train_dict
from loaderx.zrecord import DenseStore


def records_of(count, item_bytes):
    """The score benchmark's image-like bytes (a gradient with 3 bits of
    noise in every other byte)."""
    rng = np.random.default_rng(0)
    ramp = (np.arange(item_bytes) * 3 % 256).astype(np.uint8)
    noise = rng.integers(0, 8, (count, item_bytes), dtype=np.uint8)
    noise[:, ::2] = 0
    rows = (np.arange(count) * 7 % 256).astype(np.uint8)[:, None]
    return (ramp[None] + rows) ^ noise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=65536)
    parser.add_argument("--record-bytes", type=int, default=64)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    work = tempfile.mkdtemp(dir=args.dir)
    try:
        data = records_of(args.records, args.record_bytes)
        rng = np.random.default_rng(1)
        plan = [rng.integers(0, args.records, args.batch).astype(np.uint64)
                for _ in range(args.batches)]
        dictionary = train_dict(data[:8192])
        stores = {}
        for codec in ("raw", "zstd", "zstd_dict"):
            extra = {"dict_bytes": dictionary} if codec == "zstd_dict" else {}
            store = DenseStore(os.path.join(work, codec), np.uint8,
                               (args.record_bytes,), codec=codec, **extra)
            for b in range(0, args.records, 4096):
                store.append(data[b:b + 4096])
            stores[codec] = store
        out = np.empty((args.batch, args.record_bytes), np.uint8)
        for codec, store in stores.items():  # Checked before timing.
            for p in plan:
                store._native.gather_into(p, _bytes_of(out))
                if not np.array_equal(out, data[p.astype(np.int64)]):
                    raise SystemExit(f"{codec}: a batch differs from its "
                                     "source records")
        rates = {codec: [] for codec in stores}
        ratios = {codec: [] for codec in stores}
        for _ in range(args.rounds):
            seconds = {}
            for codec, store in stores.items():
                start = time.perf_counter()
                for p in plan:
                    store._native.gather_into(p, _bytes_of(out))
                seconds[codec] = time.perf_counter() - start
            for codec in stores:
                rates[codec].append(args.batch * args.batches / seconds[codec])
                ratios[codec].append(seconds["raw"] / seconds[codec])
        print(f"## {args.records} records of {args.record_bytes} B, batch "
              f"{args.batch}, {args.rounds} rounds (gather_into, reused buffer)")
        print(f"{'codec':10s} {'stored/record bytes':>20s} {'M rec/s':>16s} "
              f"{'vs raw':>12s}")
        logical = args.records * args.record_bytes
        for codec, store in stores.items():
            stored = store.stats()["chunk_bytes"] / logical
            r = rates[codec]
            q = ratios[codec]
            print(f"{codec:10s} {stored:19.2f}x {min(r) / 1e6:7.2f}-"
                  f"{max(r) / 1e6:<7.2f} {min(q):5.2f}-{max(q):.2f}x")
        for store in stores.values():
            store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
