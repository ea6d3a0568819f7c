"""The endless, step-based data loader, with loaderx 1.7.7's signature.

    loader = DataLoader({'data': DenseStore('train_data'),
                         'label': DenseStore('train_label')},
                        batch_size=256, transform=collate)
    for batch in loader:              # never ends: stop when you like
        ...

`DataLoader(streams, num_workers=4, batch_size=256, prefetch_size=4,
mode=2, seed=42, transform=identity)`, positional order as listed; the
default mode 2 is cyclic. `streams` is anything `dict()` accepts, mapping
names to stores: any object with `__len__` and `__getitems__(indices)` (or,
failing that, `__getitem__` taking an index array). A batch is a dict
{name: values}, every stream gathered at the same indices, so record i
lines up across them: a dense stream's value is the stacked
(batch, *item_shape) array, a ragged stream's a list of arrays. The indices
come from `loader.sampler` (a `loaderx.zsampler.Sampler`), so for a given
seed the loader visits records in the same order as 1.7.7's.

Pipeline: the loader draws each step's indices from its sampler in step
order, on the thread that calls `next()`, and hands the step to one of
`num_workers` threads (at least 1), which gathers every stream (the native
gathers release the GIL) and runs `transform`. Up to
`num_workers + prefetch_size` steps are in flight or ready ahead of the
consumer. Batches are delivered in step order.

Differences from 1.7.7, all additions or errors where it misbehaves:
- batches arrive in step order (1.7.7: in whatever order transforms end);
- `seek(step)` resumes exactly at `step`, dropping what was prefetched, and
  so does seeking `loader.sampler` directly (the loader notices the
  sampler moved); `step` is the step of the next batch; `next()` is a
  method as well as `__next__`;
- the workers start with the first `next()`, not in the constructor, so
  nothing is prefetched before it is asked for;
- after an error in a gather or in `transform`, raised with its traceback
  by the `next()` that would have returned that batch, the loader has moved
  past that step and the following `next()` returns the following batch
  (1.7.7 stops, and a later `next()` blocks for ever);
- `transform=None` means identity (1.7.7 calls None and fails);
- `prefetch_size <= 0` prefetches nothing beyond the workers' batches
  (1.7.7: an unbounded queue).

`close()`, the context manager and `__del__` stop and join the worker
threads; the stores stay open (they are the caller's). A loader is used
from one thread at a time.
"""

import collections
import concurrent.futures
import itertools
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NoReturn, Self

from loaderx.zsampler import Sampler

_loader_ids = itertools.count()


def _identity(batch: dict[str, Any]) -> Any:
    return batch


def _gather_of(name, store):
    """How stream `name` is gathered: `__getitems__` (the reference's
    protocol, native for our stores) or indexing with the index array."""
    gather = getattr(store, "__getitems__", None)
    if gather is None:
        gather = getattr(store, "__getitem__", None)
    if gather is None:
        raise TypeError(f"stream {name!r} has neither __getitems__ nor "
                        f"__getitem__: {store!r}")
    return gather


def _load(gathers, transform, indices):
    """One step's batch: every stream at `indices`, then `transform`. Runs
    on a worker thread."""
    return transform({name: gather(indices) for name, gather in gathers.items()})


class DataLoader:
    """Batches of index-aligned records from named streams, without end."""

    def __init__(self,
                 streams: Mapping[str, Any] | Iterable[tuple[str, Any]],
                 num_workers: int = 4, batch_size: int = 256,
                 prefetch_size: int = 4, mode: int = 2, seed: int = 42,
                 transform: Callable[[dict[str, Any]], Any] | None = _identity
                 ) -> None:
        streams = dict(streams)
        if not streams:
            raise ValueError("need at least one stream")
        lengths = {name: len(store) for name, store in streams.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(
                f"all streams must hold the same number of records, got {lengths}")
        self._gathers = {name: _gather_of(name, store)
                         for name, store in streams.items()}
        # 1.7.7 would call None in a worker and fail with TypeError.
        self._transform = _identity if transform is None else transform
        self._sampler = Sampler(next(iter(lengths.values())), batch_size, mode,
                                seed)
        self._workers = max(1, int(num_workers))
        self._depth = self._workers + max(0, int(prefetch_size))
        self._thread_prefix = f"loaderx-loader-{next(_loader_ids)}"
        self._pool = None  # Started by the first next().
        # Futures of steps _step, _step+1...
        self._pending: collections.deque[concurrent.futures.Future[Any]] = (
            collections.deque())
        self._step = self._sampler.step  # The step next() returns.
        self._drawn = self._step  # The sampler's step after our last draw.
        self._closed = False

    @property
    def sampler(self) -> Sampler:
        """The sampler the indices come from. Seeking it directly is the same
        as `seek()`."""
        return self._sampler

    @property
    def step(self) -> int:
        """The step of the batch the next `next()` returns."""
        return self._step

    def next(self) -> Any:
        """The batch at the current step; moves to the next step. Raises
        what the gather or `transform` raised for this step."""
        if self._closed:
            raise RuntimeError("the loader is closed")
        if self._sampler.step != self._drawn:  # Moved from outside.
            self._restart_at(self._sampler.step)
        self._fill()
        future = self._pending.popleft()
        self._step += 1
        self._fill()
        return future.result()

    def seek(self, step: int) -> None:
        """Continues from `step` exactly: prefetched batches are dropped.
        Costs what `Sampler.seek` costs (IID replays its stream)."""
        self._sampler.seek(step)
        self._restart_at(self._sampler.step)

    def close(self) -> None:
        """Stops prefetching and joins the workers. The stores stay open."""
        if self._closed:
            return
        self._closed = True
        self._drop_pending()
        if self._pool is not None:
            # A worker closing its own loader (from `transform`, or a garbage
            # collection it triggered) cannot join itself.
            on_worker = threading.current_thread().name.startswith(
                self._thread_prefix + "_")
            self._pool.shutdown(wait=not on_worker, cancel_futures=True)

    def _fill(self):
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=self._workers, thread_name_prefix=self._thread_prefix)
        while len(self._pending) < self._depth:
            indices = self._sampler.next()
            self._pending.append(self._pool.submit(
                _load, self._gathers, self._transform, indices))
        self._drawn = self._sampler.step

    def _restart_at(self, step):
        self._drop_pending()
        self._step = step
        self._drawn = step

    def _drop_pending(self):
        for future in self._pending:
            future.cancel()  # A batch already being made is left to finish.
        self._pending.clear()

    def __len__(self) -> NoReturn:
        raise TypeError("Eternal loader has no length.")

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> Any:
        return self.next()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> Literal[False]:
        self.close()
        return False

    def __del__(self) -> None:
        # A loader dropped without close() must not leave threads behind. A
        # constructor that raised left no `_closed` and no threads.
        if getattr(self, "_closed", True) is False:
            self.close()
