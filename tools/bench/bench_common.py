"""What the Python store benchmarks share: allocated-size measurement and
the loaderx backend (a store written in 256-record appends, closed without
fsync as every backend is, then reopened for reading)."""

import os


def disk_bytes(path):
    """Allocated bytes (not apparent size) of a file or a directory tree."""
    if os.path.isfile(path):
        return os.stat(path).st_blocks * 512
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.stat(os.path.join(root, f)).st_blocks * 512 for f in files)
    return total


class LoaderxBackend:
    """A loaderx store as a benchmark backend.

    `create(path, records, codec)` makes the store; `store_class(path)`
    reopens it.
    """

    def __init__(self, store_class, create, codec):
        self.name = f"loaderx-{codec}"
        self.store_class = store_class
        self.create = create
        self.codec = codec

    def write(self, path, records):
        store = self.create(path, records, self.codec)
        for start in range(0, len(records), 256):
            store.append(records[start:start + 256])
        store.close(sync=False)  # No fsync for anyone.
        self.store = self.store_class(path)

    def gather(self, indices):
        return self.store[indices]

    def close(self):
        self.store.close()
