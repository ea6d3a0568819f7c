"""The endless, step-based data loader, with loaderx 1.7.7's signature.

    loader = DataLoader({'data': DenseStore('train_data'),
                         'label': DenseStore('train_label')},
                        batch_size=256, transform=collate)
    for batch in loader:              # never ends: stop when you like
        ...

`DataLoader(streams, num_workers=4, batch_size=256, prefetch_size=4,
mode=2, seed=42, transform=identity)`, positional order as listed; the
default mode 2 is cyclic. `streams` is anything `dict()` accepts, mapping
names to stores (`DenseStore`, `RaggedStore`, any `TypedStore`, a
`StoreSet`) or to other
objects with `__len__` and `__getitems__(indices)` (or, failing that,
`__getitem__` taking an index array). A batch is a dict {name: values},
every stream gathered at the same indices, so record i lines up across
them: a dense stream's value is the (batch, *item_shape) array, a ragged
stream's a list of arrays. The indices come from the sampler
`loader.sampler` describes, so for a given seed the loader visits records
in the same order as 1.7.7's.

The loader is loaderx's C++ `DataLoader` (`loaderx/data_loader.h`): it
draws each step's indices, gathers the stores' records on the native
thread pool into a ring of reusable batch buffers, `prefetch_size` steps
ahead of the consumer, and hands batches over in step order. Python adds
what only Python can do: `transform` runs on `num_workers` Python threads
(at least 1; none are started for the identity transform), and streams that
are not loaderx stores are gathered there, at the batch's indices.

Arrays are views, not copies. A store stream's arrays lie in the native
batch's buffers; their `base` is a `loaderx_native.BatchBuffer` that holds
the batch. Lifetime rule: a batch's arrays stay valid for as long as any of
them (or any view of them) is referenced, however far the loader advances,
and after it closes; the native ring reuses a batch's buffers only once
every array on them is gone (until then it allocates other buffers), so
keeping many batches alive costs their memory. The arrays are writable
(in-place transforms are fine) and page-aligned; ragged records lie back to
back in one buffer.

Differences from 1.7.7, all additions or errors where it misbehaves:
- batches arrive in step order (1.7.7: in whatever order transforms end);
- `seek(step)` resumes exactly at `step`, dropping what was prefetched, and
  so does `loader.sampler.seek(step)`; `step` (and `loader.sampler.step`) is
  the step of the next batch; `next()` is a method as well as `__next__`;
- nothing is read before the first `next()`;
- after an error in a gather or in `transform`, raised (with its traceback)
  by the `next()` that would have returned that batch, the loader has moved
  past that step and the following `next()` returns the following batch
  (1.7.7 stops, and a later `next()` blocks for ever);
- `transform=None` means identity (1.7.7 calls None and fails);
- `prefetch_size` below 1 prefetches one step (1.7.7: an unbounded queue).

Data-parallel training: `DataLoader(..., rank=r, world_size=w)` reads
rank r's contiguous slice (batch_size // w records) of every global batch
of `batch_size`; all ranks together read exactly the single-process batch,
with no coordination between them. `w` must divide `batch_size`.
`state_dict()` is six numbers (step, seed, mode, global batch size, length
and the data set's fingerprint); `load_state_dict(state)` resumes it at any
world size that divides the batch, and raises ValueError for a state of
other data (or data changed since), another batch size, mode or seed.

1.7.7's two queues: code that reads their bounds still runs.
`loader.batches.maxsize` is `prefetch_size` (as in 1.7.7, the most batches
made ahead of the consumer: here the native loader's prefetch depth) and
`loader.raw_batches.maxsize` is 1 (1.7.7's one-slot handoff from the gather
thread). They are bounds only: loaderx has no such queue objects to put to
or get from, since the native loader hands batches over in step order.

`close()`, the context manager and `__del__` stop the native loader (waiting
for its gathers in flight) and join the transform threads; batches already
returned stay valid, and the stores stay open (they are the caller's). A
store handle closed while a loader reads it stays open underneath until the
loader closes.

Threads (also on free-threaded Python, where `transform` runs on its
`num_workers` threads truly in parallel): `next`, `seek` and `close` may be
called from any threads at once. Concurrent `next` calls take distinct
consecutive steps, each batch once; a `close` during a `next` makes that
`next` either return its batch or raise RuntimeError("the loader is
closed").
"""

import collections
import concurrent.futures
import itertools
import operator
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NoReturn, Self, SupportsIndex

import numpy as np

from loaderx import loaderx_native as _native
from loaderx.store_set import StoreSet
from loaderx.typed_store import TypedStore
from loaderx.zsampler import Sampler, _u64

_loader_ids = itertools.count()
_INDEX_STREAM = "indices"
_STATE_KEYS = frozenset(
    ("step", "seed", "mode", "batch_size", "length", "fingerprint"))


def _identity(batch: dict[str, Any]) -> Any:
    return batch


def _gather_of(name, store):
    """How a stream that is not a loaderx store is gathered: `__getitems__`
    (the reference's protocol) or indexing with the index array."""
    gather = getattr(store, "__getitems__", None)
    if gather is None:
        gather = getattr(store, "__getitem__", None)
    if gather is None:
        raise TypeError(f"stream {name!r} has neither __getitems__ nor "
                        f"__getitem__: {store!r}")
    return gather


class _Assembler:
    """Turns a native batch into the batch dict: views of the native
    buffers for store streams, the other streams gathered at its indices.
    Releases the native batch's own share (the arrays hold theirs)."""

    def __init__(self, streams, native):
        native_index = {native.stream_name(i): i
                        for i in range(native.num_streams())}
        self._plan = []
        for name, store in streams.items():
            if isinstance(store, (TypedStore, StoreSet)):
                i = native_index[name]
                shape = (tuple(native.stream_item_shape(i))
                         if native.stream_kind(i) == "dense" else None)
                self._plan.append((name, i, store.dtype, shape))
            else:
                self._plan.append((name, -1, _gather_of(name, store), None))
        self._has_foreign = any(i < 0 for _, i, _, _ in self._plan)

    def __call__(self, native_batch):
        try:
            return self._assemble(native_batch)
        finally:
            native_batch.release()

    def _assemble(self, native_batch):
        count = native_batch.size()
        indices = None
        if self._has_foreign:
            # A copy: a source may keep or modify what it is given.
            indices = np.ndarray((count,), np.uint64,
                                 native_batch.indices()).copy()
        batch = {}
        for name, i, what, shape in self._plan:
            if i < 0:
                batch[name] = what(indices)
            elif shape is not None:
                batch[name] = np.ndarray((count, *shape), what,
                                         native_batch.buffer(i))
            else:
                batch[name] = _ragged_views(native_batch, i, what)
        return batch


def _ragged_views(native_batch, stream, dtype):
    """Stream `stream`'s records as arrays on its one buffer."""
    buffer = native_batch.buffer(stream)
    dims = native_batch.dims(stream)
    records = []
    start = 0
    for offset, rank in zip(native_batch.offsets(stream),
                            native_batch.ranks(stream)):
        shape = tuple(dims[start:start + rank])
        start += rank
        records.append(np.ndarray(shape, dtype, buffer, offset))
    return records


def _load(assemble, transform, native_batch):
    """One step's batch, assembled and transformed on a worker thread."""
    return transform(assemble(native_batch))


class QueueBound:
    """`loader.raw_batches` and `loader.batches`: the bound of one of
    1.7.7's queues, as its `queue.Queue.maxsize` (read-only)."""

    __slots__ = ("_maxsize",)

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize

    @property
    def maxsize(self) -> int:
        """How many batches the queue holds at most, as in 1.7.7."""
        return self._maxsize

    def __repr__(self) -> str:
        return f"QueueBound(maxsize={self._maxsize})"


class _LoaderSampler(Sampler):
    """`loader.sampler`: the loader's sampler settings; its `step` is the
    loader's and seeking it seeks the loader (as 1.7.7 code resumes)."""

    def __init__(self, loader: "DataLoader", *args: Any) -> None:
        super().__init__(*args)
        self._loader = weakref.ref(loader)

    def seek(self, step: SupportsIndex) -> None:
        loader = self._loader()
        if loader is None:
            super().seek(step)
        else:
            loader.seek(step)

    @property
    def step(self) -> int:
        loader = self._loader()
        return super().step if loader is None else loader.step


class DataLoader:
    """Batches of index-aligned records from named streams, without end."""

    def __init__(self,
                 streams: Mapping[str, Any] | Iterable[tuple[str, Any]],
                 num_workers: int = 4, batch_size: int = 256,
                 prefetch_size: int = 4, mode: int = 2, seed: int = 42,
                 transform: Callable[[dict[str, Any]], Any] | None = _identity,
                 *, rank: SupportsIndex = 0, world_size: SupportsIndex = 1
                 ) -> None:
        self._closed = True  # Until the native loader exists.
        # Guards `_closed`, `_pool` and `_pending` between `next`, `seek` and
        # `close` called from different threads: a `close` during a `next`
        # then finds either no step taken (the `next` raises "closed") or
        # the step's future already taken (the `next` returns its batch).
        # Never held while a batch is waited for.
        self._lock = threading.RLock()
        # Serialises taking steps from the native loader (its `next` and
        # `seek` are for one thread at a time) between consumer threads;
        # `close` does not take it. Taken before `_lock`, never after.
        self._consumer = threading.Lock()
        streams = dict(streams)
        if not streams:
            raise ValueError("need at least one stream")
        lengths = {name: len(store) for name, store in streams.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(
                f"all streams must hold the same number of records, got {lengths}")
        length = next(iter(lengths.values()))
        # The sampler's checks of the settings, with its exceptions.
        self._sampler = _LoaderSampler(self, length, batch_size, mode, seed,
                                       rank, world_size)
        native_streams = _native.LoaderStreams()
        for name, store in streams.items():
            if isinstance(store, TypedStore):
                native_streams.add_store(name, store._native)
            elif isinstance(store, StoreSet):
                native_streams.add_set(name, store._native)
            else:
                _gather_of(name, store)  # TypeError now, not at a step.
        if native_streams.size() == 0:
            native_streams.add_index_stream(_INDEX_STREAM, length)
        prefetch = max(1, operator.index(prefetch_size))
        self._native = _native.LoaderHandle(
            native_streams, self._sampler.batch_size, self._sampler.mode,
            self._sampler.seed, prefetch, self._sampler.rank,
            self._sampler.world_size)
        self._raw_batches = QueueBound(1)
        self._batches = QueueBound(prefetch)
        self._closed = False
        self._assemble = _Assembler(streams, self._native)
        # 1.7.7 would call None in a worker and fail with TypeError.
        self._transform = _identity if transform is None else transform
        self._workers = max(1, operator.index(num_workers))
        # The identity over stores needs no Python thread at all.
        self._direct = (self._transform is _identity
                        and not self._assemble._has_foreign)
        self._thread_prefix = f"loaderx-loader-{next(_loader_ids)}"
        self._pool = None  # Started by the first next() that needs it.
        # Futures of steps step, step + 1, ... (taken from the native loader).
        self._pending: collections.deque[concurrent.futures.Future[Any]] = (
            collections.deque())

    @property
    def sampler(self) -> Sampler:
        """The sampler's settings (length, batch_size, mode, seed, `batch`);
        its `step` is the loader's, and `seek` on it seeks the loader."""
        return self._sampler

    @property
    def raw_batches(self) -> QueueBound:
        """1.7.7's gathered-batch queue bound: `maxsize` 1."""
        return self._raw_batches

    @property
    def batches(self) -> QueueBound:
        """1.7.7's output queue bound: `maxsize` is the prefetch depth."""
        return self._batches

    @property
    def step(self) -> int:
        """The step of the batch the next `next()` returns."""
        with self._lock:
            return self._native.step() - len(self._pending)

    def next(self) -> Any:
        """The batch at the current step; moves to the next step. Raises
        what the gather or `transform` raised for this step, or
        RuntimeError once the loader is closed (also when `close` came
        before this step's batch began to be made)."""
        if self._closed:
            raise RuntimeError("the loader is closed")
        if self._direct:
            with self._consumer:
                native_batch = self._native.next()
            return self._assemble(native_batch)
        with self._consumer, self._lock:
            if self._closed:
                raise RuntimeError("the loader is closed")
            self._fill()
            future = self._pending.popleft()
            self._fill()
        try:
            return future.result()
        except concurrent.futures.CancelledError:  # By a close meanwhile.
            raise RuntimeError("the loader is closed") from None

    def seek(self, step: SupportsIndex) -> None:
        """Continues from `step` exactly: prefetched batches are dropped.
        Costs what `Sampler.seek` costs (IID replays its stream)."""
        step = _u64(step, "step")
        with self._consumer, self._lock:
            if self._closed:
                raise RuntimeError("the loader is closed")
            self._drop_pending()
            self._native.seek(step)

    @property
    def rank(self) -> int:
        """This process's rank: which slice of every global batch it reads."""
        return self._sampler.rank

    @property
    def world_size(self) -> int:
        """How many ranks share every global batch."""
        return self._sampler.world_size

    def state_dict(self) -> dict[str, int]:
        """The loader's whole checkpoint: the next batch's step, the seed,
        the mode, the global batch size, the data set's length and its
        fingerprint. The same on every rank; resumable at any world size
        that divides the batch size."""
        with self._lock:
            return {"step": self._native.step() - len(self._pending),
                    "seed": self._native.seed(),
                    "mode": self._native.mode(),
                    "batch_size": self._native.batch_size(),
                    "length": self._native.size(),
                    "fingerprint": self._native.fingerprint()}

    def load_state_dict(self, state: Mapping[str, int]) -> None:
        """Continues from `state_dict()`'s result, dropping what was
        prefetched. ValueError, changing nothing, for a state of another
        data set (or of this one before it changed), another batch size,
        length, mode or seed, or a malformed state."""
        missing = _STATE_KEYS - set(state)
        if missing:
            raise ValueError(f"loader state is missing {sorted(missing)}")
        values = {key: _u64(state[key], key) for key in _STATE_KEYS}
        with self._lock:
            if self._closed:
                raise RuntimeError("the loader is closed")
            self._native.restore(values["step"], values["seed"],
                                 values["mode"], values["batch_size"],
                                 values["length"], values["fingerprint"])
            self._drop_pending()

    def close(self) -> None:
        """Stops the loader and joins its threads. The stores stay open."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._drop_pending()
            self._native.close()
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
        while len(self._pending) < self._workers:
            try:
                native_batch = self._native.next()
            except Exception as error:  # That step's error, raised at it.
                future = concurrent.futures.Future()
                future.set_exception(error)
            else:
                future = self._pool.submit(_load, self._assemble,
                                           self._transform, native_batch)
            self._pending.append(future)

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
        # constructor that raised left no native loader and no threads.
        if getattr(self, "_closed", True) is False:
            self.close()
