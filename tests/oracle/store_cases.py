"""The store cases both implementations write and read, and the scripts
they run. Every script uses only loaderx 1.7.7's public API, so the same
text runs under the reference (`reference.run_reference_json`) and under
the loaderx being tested (`reference.run_here_json`).

A case is a JSON object: name, kind ("dense"/"ragged"), codec, dtype (a
`dtype.str`, or the dict form {names, formats, offsets, itemsize} for
structured dtypes, which rebuilds them exactly on both sides), item_shape
(dense). Its records live in an .npz file: `<name>` (dense, one array) or
`<name>/<i>` (ragged, one array per record).
"""

import itertools

import numpy as np

CODECS = ("raw", "zstd", "zstd_dict")

# Two dtypes per kind: a plain one, and one 1.7.7's identity writes as a
# structured descr list (a title, a datetime, a big-endian subarray field)
# or as a non-numeric dtype.str. (No padding: numpy leaves padding bytes
# undefined when it copies, and 1.7.7 writes whatever they hold; padded
# dtypes are compared in `DIFFERENCES` and the Python suites.)
_STRUCT = {"names": ["id", "t", "v"], "formats": ["<i4", "<M8[ns]", "(2,)>f4"],
           "offsets": [0, 4, 12], "titles": ["Id", None, None],
           "itemsize": 20}
DTYPES = {
    "dense": [("f4", "<f4", [3, 4]), ("struct", _STRUCT, [2])],
    "ragged": [("u1", "|u1", None), ("text", "<U4", None)],
}


def cases():
    """The 12 cases: kind x codec x dtype."""
    out = []
    for kind, codec in itertools.product(("dense", "ragged"), CODECS):
        for label, dtype, item_shape in DTYPES[kind]:
            case = {"name": f"{kind}-{codec}-{label}", "kind": kind,
                    "codec": codec, "dtype": dtype}
            if item_shape is not None:
                case["item_shape"] = item_shape
            out.append(case)
    return out


def numpy_dtype(spec):
    return np.dtype(spec)


def records(case):
    """The case's records: an array (dense) or a list of arrays (ragged)."""
    rng = np.random.default_rng(sum(map(ord, case["name"])))
    dtype = numpy_dtype(case["dtype"])
    if case["kind"] == "dense":
        count = 8
        shape = (count, *case["item_shape"])
        if dtype.fields is not None:
            out = np.zeros(shape, dtype)
            out["id"] = rng.integers(0, 1000, shape)
            out["t"] = rng.integers(0, 10**12, shape).astype("M8[ns]")
            out["v"] = rng.random((*shape, 2))
            return out
        # Smooth values, so zstd has something to do.
        return (np.arange(np.prod(shape)).reshape(shape) % 17).astype(dtype)
    shapes = [(5,), (2, 3), (), (1,), (4, 1, 2), (7,)]
    if dtype.kind == "U":
        words = ["ab", "cdef", "", "g", "hij", "kl"]
        return [np.array([w + str(i) for i in range(int(np.prod(s)))],
                         dtype).reshape(s) for w, s in zip(words, shapes)]
    return [(np.arange(int(np.prod(s))) * (k + 3) % 251).astype(dtype)
            .reshape(s) for k, s in enumerate(shapes)]


def save_records(path, all_cases):
    arrays = {}
    for case in all_cases:
        data = records(case)
        if case["kind"] == "dense":
            arrays[case["name"]] = data
        else:
            for i, record in enumerate(data):
                arrays[f"{case['name']}/{i}"] = record
    np.savez(path, **arrays)


def dictionary_samples():
    """Small, similar records to train the zstd_dict cases' dictionary on."""
    rng = np.random.default_rng(7)
    base = (np.arange(64, dtype=np.uint8) * 3)
    return [bytes(base ^ (rng.random(64) < 0.1) * rng.integers(0, 255, 64)
                  .astype(np.uint8)) for _ in range(2000)]


_COMMON = r'''
import json, sys
import numpy as np
from loaderx.zrecord import DenseStore, RaggedStore, ZrecordError

def dtype_of(spec):
    return np.dtype(spec)

def describe(dtype):
    return dtype.descr if dtype.fields is not None else dtype.str

def plain(value):
    """JSON for whatever the API returns."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        return {"array": [describe(array.dtype), list(array.shape),
                          array.tobytes().hex()],
                "scalar": isinstance(value, np.generic)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return {"type": type(value).__name__, "str": str(value)}
'''

# argv: cases.json, records.npz, dictionary file, output directory.
WRITER = _COMMON + r'''
cases = json.load(open(sys.argv[1]))
data = np.load(sys.argv[2])
dictionary = open(sys.argv[3], "rb").read()
root = sys.argv[4]
for case in cases:
    path = f"{root}/{case['name']}"
    dtype = dtype_of(case["dtype"])
    extra = {"dict_bytes": dictionary} if case["codec"] == "zstd_dict" else {}
    # Raw appends go in one batch; compressed ones one record per call, so
    # that records land in index order whatever order frames complete in.
    one_by_one = case["codec"] != "raw"
    if case["kind"] == "dense":
        batch = data[case["name"]]
        with DenseStore(path, dtype, case["item_shape"], codec=case["codec"],
                        **extra) as ds:
            for part in (np.split(batch, len(batch)) if one_by_one else [batch]):
                ds.append(part)
    else:
        count = len([k for k in data.files if k.startswith(case["name"] + "/")])
        items = [data[f"{case['name']}/{i}"] for i in range(count)]
        with RaggedStore(path, dtype, codec=case["codec"], **extra) as rs:
            for part in ([[r] for r in items] if one_by_one else [items]):
                rs.append(part)
print(json.dumps({"written": len(cases)}))
'''

# argv: cases.json, store root. For each case, what the store reads as.
READER = _COMMON + r'''
cases = json.load(open(sys.argv[1]))
root = sys.argv[2]
out = {}
for case in cases:
    path = f"{root}/{case['name']}"
    cls = DenseStore if case["kind"] == "dense" else RaggedStore
    with cls(path) as store:
        n = len(store)
        result = {
            "dtype": describe(store.dtype),
            "codec": store.codec, "len": n, "stats": store.stats(),
            "has_dict": store.has_dict(),
            "all": plain(store[:]),
            "picked": plain(store[n - 1, 0, n // 2]),
            "one": plain(store[-1]),
        }
        if case["kind"] == "dense":
            result["item_shape"] = list(store.item_shape)
    out[case["name"]] = result
print(json.dumps(out))
'''

# The same API script on both sides: open-or-create, appends, every index
# form, deletes with duplicates, compaction, stats and errors. argv: a
# scratch directory. Prints {step: {"ok": value} or {"error": [...], ...}}.
API_SCRIPT = _COMMON + r'''
import os, pathlib
from loaderx.zrecord import DICT_TIERS
from loaderx.utils import train_dict
root = pathlib.Path(sys.argv[1])
out = {}
KINDS = (ZrecordError, ValueError, IndexError, KeyError, TypeError,
         OverflowError, FileNotFoundError, FileExistsError, BlockingIOError,
         RuntimeError)

def step(name, fn):
    try:
        out[name] = {"ok": plain(fn())}
    except Exception as e:
        out[name] = {"error": [k.__name__ for k in KINDS if isinstance(e, k)],
                     "code": getattr(e, "code", None)}

d = root / "dense"
ds = DenseStore(d, np.float32, (2, 3), codec="raw")
step("attrs", lambda: [ds.dtype.str, list(ds.item_shape), ds.codec,
                       type(ds.path).__name__, str(ds.path) == str(d), len(ds)])
step("append", lambda: ds.append(np.arange(24, dtype=np.float32).reshape(4, 2, 3)))
step("append_more", lambda: ds.append(np.ones((2, 2, 3), np.float32)))
step("append_wrong_dtype", lambda: ds.append(np.zeros((1, 2, 3), np.float64)))
step("append_wrong_shape", lambda: ds.append(np.zeros((1, 3, 2), np.float32)))
step("append_empty", lambda: ds.append(np.zeros((0, 2, 3), np.float32)))
step("busy", lambda: DenseStore(d))
step("scalar", lambda: ds[0])
step("negative", lambda: ds[-1])
step("slice", lambda: ds[1:5:2])
step("reverse_slice", lambda: ds[::-2])
step("tuple", lambda: ds[0, 5, 2])
step("list", lambda: ds[[-1, -6]])
step("int_array", lambda: ds[np.array([3, 3, 0], np.int16)])
step("uint_array", lambda: ds[np.array([1, 4], np.uint64)])
step("mask", lambda: ds[np.array([True, False, True, False, False, True])])
step("flat_2d", lambda: ds[np.array([[1, 2], [3, 0]])])
step("empty", lambda: ds[[]])
step("getitems", lambda: ds.__getitems__([5, 0]))
step("past_end", lambda: ds[6])
step("past_end_list", lambda: ds[[0, 6]])
step("huge_uint64", lambda: ds[np.array([2**64 - 3], np.uint64)])
step("string_key", lambda: ds["a"])
step("delete_huge", lambda: ds.delete(np.array([2**64 - 3], np.uint64)))
step("delete_duplicates", lambda: ds.delete([0, 0, 3]))
step("after_delete", lambda: [len(ds), ds[:]])
step("stats", lambda: ds.stats())
step("compact", lambda: ds.compact())
step("stats_compacted", lambda: ds.stats())
step("has_dict", lambda: ds.has_dict())
step("sync", lambda: ds.sync())
ds.close()
step("reopen_matching", lambda: len(DenseStore(d, np.float32, (2, 3), codec="raw")))
step("reopen_dtype", lambda: DenseStore(d, np.float64))
step("reopen_shape", lambda: DenseStore(d, item_shape=(3, 2)))
step("reopen_codec", lambda: DenseStore(d, codec="zstd"))
step("reopen_dict", lambda: DenseStore(d, dict_bytes=b"x" * 64))
step("as_ragged", lambda: RaggedStore(d))
step("missing", lambda: DenseStore(root / "missing"))
step("missing_no_shape", lambda: DenseStore(root / "missing", np.int8))
step("missing_created", lambda: (root / "missing").exists())
step("unknown_codec", lambda: DenseStore(root / "c1", np.int8, (1,), codec="lz4"))
step("dict_needed", lambda: DenseStore(root / "c2", np.int8, (1,), codec="zstd_dict"))
step("dict_unwanted", lambda: DenseStore(root / "c3", np.int8, (1,), dict_bytes=b"x"))
step("zero_width", lambda: DenseStore(root / "c4", np.int8, (3, 0)))
step("negative_dim", lambda: DenseStore(root / "c5", np.int8, (-1,)))
step("too_wide", lambda: DenseStore(root / "c6", np.float64, (2**20, 2**10)))
step("object_dtype", lambda: RaggedStore(root / "c7", object))
step("nothing_created", lambda: sorted(p.name for p in root.iterdir()))
(root / "foreign").mkdir()
(root / "foreign" / "cat.jpg").write_bytes(b"\xff\xd8")
step("foreign_dir", lambda: DenseStore(root / "foreign", np.int8, (1,)))
step("foreign_untouched", lambda: sorted(p.name for p in (root / "foreign").iterdir()))
step("deep_parents", lambda: DenseStore(root / "a" / "b" / "c", np.int8, (1,)).close())

s = DenseStore(root / "scalar", np.int64, (), codec="zstd")
step("scalar_append_0d", lambda: s.append(np.int64(42)))
step("scalar_append", lambda: s.append(np.arange(3, dtype=np.int64)))
step("scalar_read", lambda: [s[0], s[3], s[:]])
step("scalar_stats", lambda: s.stats()["records"])
s.close()

r = RaggedStore(root / "ragged", np.uint8, codec="raw")
step("ragged_append", lambda: r.append([b"abc", bytearray(b"de"),
                                        np.arange(6, dtype=np.uint8).reshape(2, 3),
                                        np.uint8(7)]))
step("ragged_append_more", lambda: r.append(iter([np.full((2, 2, 2), 9, np.uint8)])))
step("ragged_empty_record", lambda: r.append([b"ok", b""]))
step("ragged_empty_batch", lambda: r.append([]))
step("ragged_wrong_dtype", lambda: r.append([np.zeros(3, np.int32)]))
step("ragged_one", lambda: r[2])
step("ragged_scalar", lambda: r[3])
step("ragged_set", lambda: r[[4, 0]])
step("ragged_all", lambda: r[:])
step("ragged_past_end", lambda: r[5])
step("ragged_stats", lambda: r.stats())
step("ragged_delete", lambda: r.delete([1, 1]))
step("ragged_after_delete", lambda: r[:])
step("ragged_compact", lambda: [r.compact(), r.stats()])
r.close()
ri = RaggedStore(root / "ragged_i4", np.int32)
step("bytes_in_int32", lambda: ri.append([b"abcd"]))
step("ragged_zero_size", lambda: ri.append([np.zeros((0, 3), np.int32)]))
ri.close()

samples = [bytes((np.arange(64) * 3 + i % 5).astype(np.uint8)) for i in range(300)]
dictionary = train_dict(samples, tier="fast")
step("dict_store", lambda: DenseStore(root / "zd", np.uint8, (64,), codec="zstd_dict",
                                      dict_bytes=dictionary).has_dict())
step("dict_tiers", lambda: DICT_TIERS)
step("train_bad_tier", lambda: train_dict(samples, tier="huge"))
step("train_int_tier", lambda: train_dict(samples, tier=1))
step("train_nothing", lambda: train_dict([]))
step("train_too_little", lambda: train_dict([b"ab", b"cd"]))
step("error_message", lambda: [str(ZrecordError(-3)), ZrecordError(-14).code,
                               issubclass(ZrecordError, RuntimeError)])
print(json.dumps(out))
'''
