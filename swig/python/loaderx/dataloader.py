"""The endless, step-based data loader.

    loader = DataLoader({'data': DenseStore('train_data'),
                         'label': DenseStore('train_label')},
                        batch_size=256, transform=collate)
    for step, batch in enumerate(loader):   # never ends: stop when you like
        ...

A batch is a dict {name: values}: a dense stream's value is the stacked
(batch_size, *item_shape) array, a ragged stream's a list of arrays. Every
stream is gathered at the same indices, so record i lines up across them;
the loader checks that all streams have the same length. Indices come from
a `loaderx.zsampler.Sampler`, so batch `step` is a pure function of
(seed, step) and `seek(step)` resumes a run exactly.

Prefetching runs on threads inside the process: `workers` threads gather
(the native gathers release the GIL) and run `transform` on up to
`prefetch` batches ahead of the consumer. Batches are delivered in step
order. An error in a gather or in `transform` is raised by the `next()`
that would have returned that batch.
"""

import collections
import concurrent.futures

from loaderx.zsampler import Sampler


class DataLoader:
    """Batches of index-aligned records from a dict of stores."""

    def __init__(self, streams, batch_size=256, mode=Sampler.Mode.IID,
                 seed=0, transform=None, workers=4, prefetch=8):
        if not isinstance(streams, dict) or not streams:
            raise ValueError("streams must be a non-empty dict {name: store}")
        lengths = {name: len(store) for name, store in streams.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"streams must have equal lengths, got {lengths}")
        if workers < 1 or prefetch < 1:
            raise ValueError("workers and prefetch must be at least 1")
        self._streams = dict(streams)
        self._transform = transform
        self._sampler = Sampler(next(iter(lengths.values())), batch_size,
                                mode, seed)
        self._prefetch = prefetch
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="loaderx-prefetch")
        self._pending = collections.deque()  # futures for steps in order
        self._next_step = 0                  # the step next() returns
        self._closed = False

    @property
    def step(self):
        """The step the next batch belongs to."""
        return self._next_step

    @property
    def sampler(self):
        return self._sampler

    def _load(self, step):
        indices = self._sampler.batch(step)
        batch = {name: store[indices] for name, store in self._streams.items()}
        return self._transform(batch) if self._transform else batch

    def _fill(self):
        # `_pending` holds the steps _next_step, _next_step + 1, ...
        while len(self._pending) < self._prefetch:
            step = self._next_step + len(self._pending)
            self._pending.append(self._pool.submit(self._load, step))

    def next(self):
        """The batch at the current step; advances to the next."""
        if self._closed:
            raise RuntimeError("the loader is closed")
        self._fill()
        future = self._pending.popleft()
        self._next_step += 1
        self._fill()
        return future.result()

    def seek(self, step):
        """Continues from `step`: prefetched batches are dropped."""
        if step < 0:
            raise ValueError(f"step must not be negative, got {step}")
        for future in self._pending:
            future.cancel()
        self._pending.clear()
        self._next_step = int(step)

    def close(self):
        """Stops prefetching. The stores stay open: they are the caller's."""
        if not self._closed:
            self._closed = True
            for future in self._pending:
                future.cancel()
            self._pending.clear()
            self._pool.shutdown(wait=True)

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False

    def __del__(self):
        # A loader dropped without close() must not leave threads behind.
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
