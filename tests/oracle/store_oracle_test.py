"""Our stores against the published loaderx 1.7.7, live.

The reference runs in its own venv and process (`reference.py`); ours runs
in this one. Both write the same 12 stores (dense and ragged, raw / zstd /
zstd_dict, two dtypes each) from the same records, and each reads
both sets: every store must read on one side exactly as that side's own
store does, with the records that were written. (dense float32 (3, 4) and
a structured dtype with a title, a datetime and a big-endian subarray
field; ragged uint8 and '<U4'.) Then the files themselves
are compared, and the same API script runs on both sides.

What is compared byte for byte, and why not everything: raw and zstd
stores are identical in every file (compressed records are appended one
per call, because 1.7.7 places a batch's frames in completion order; a
ragged record is two frames, payload and shape, which 1.7.7 may place
either way round: then the frames, the table entries but for their offsets,
and meta.zr must still be identical). For
zstd_dict, store.zr and dict.zr are identical; its level-19 frames depend
on the zstd version (1.7.7 vendors 1.5.6, Debian has 1.5.4), so they are
counted, and each side decodes the other's.
"""

import json
import os
import pathlib

import pytest

import reference
import store_cases

ZSTD_DICT = "zstd_dict"


def _ours_is_loaderx_under_test():
    import loaderx.zrecord

    assert "site-packages" not in loaderx.zrecord.__file__


def _report(name, text):
    print(text)
    outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if outputs:  # Bazel keeps it beside the test log.
        pathlib.Path(outputs, name).write_text(text + "\n")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The 12 stores written by 1.7.7 ("theirs") and by us ("ours")."""
    _ours_is_loaderx_under_test()
    root = tmp_path_factory.mktemp("stores")
    cases = store_cases.cases()
    (root / "cases.json").write_text(json.dumps(cases))
    store_cases.save_records(root / "records.npz", cases)
    # One dictionary for both writers, trained by 1.7.7.
    samples = root / "samples.json"
    samples.write_text(json.dumps([s.hex() for s in
                                   store_cases.dictionary_samples()]))
    reference.run_reference(
        "import json, sys\n"
        "from loaderx.utils import train_dict\n"
        "samples = [bytes.fromhex(s) for s in json.load(open(sys.argv[1]))]\n"
        "train_dict(samples, tier='fast', path=sys.argv[2])\n",
        samples, root / "dict.zr")
    args = [root / "cases.json", root / "records.npz", root / "dict.zr"]
    (root / "theirs").mkdir()
    (root / "ours").mkdir()
    assert reference.run_reference_json(store_cases.WRITER, *args,
                                        root / "theirs")["written"] == 12
    assert reference.run_here_json(store_cases.WRITER, *args,
                                   root / "ours")["written"] == 12
    return root, cases


def _readings(root, run):
    return {side: run(store_cases.READER, root / "cases.json", root / side)
            for side in ("theirs", "ours")}


def _comparable(case, reading):
    """A reading without what legitimately differs between writers: the
    byte counts of zstd_dict stores, whose frames depend on zstd's version."""
    reading = dict(reading)
    if case["codec"] == ZSTD_DICT:
        reading["stats"] = {"records": reading["stats"]["records"]}
    return reading


def _expected_records(case):
    import numpy as np

    data = store_cases.records(case)
    if case["kind"] == "dense":
        return [np.asarray(data).tobytes().hex()]
    return [np.asarray(r).tobytes().hex() for r in data]


def _record_bytes(case, reading):
    if case["kind"] == "dense":
        return [reading["all"]["array"][2]]
    return [r["array"][2] for r in reading["all"]]


def test_each_side_reads_the_others_stores_as_its_own(written):
    root, cases = written
    by_reader = {"1.7.7": _readings(root, reference.run_reference_json),
                 "ours": _readings(root, reference.run_here_json)}
    cross = {"1.7.7": 0, "ours": 0}
    for reader, readings in by_reader.items():
        other = "ours" if reader == "1.7.7" else "theirs"
        own = "theirs" if reader == "1.7.7" else "ours"
        for case in cases:
            name = case["name"]
            got, want = readings[other][name], readings[own][name]
            assert _comparable(case, got) == _comparable(case, want), (
                f"{reader} reads {other}' {name} unlike its own")
            assert _record_bytes(case, got) == _expected_records(case), name
            assert got["len"] == len(_expected_records(case)) or \
                case["kind"] == "dense"
            assert got["codec"] == case["codec"]
            assert got["has_dict"] == (case["codec"] == ZSTD_DICT)
            cross[reader] += 1
    # And both sides agree with each other.
    for case in cases:
        theirs = _comparable(case, by_reader["1.7.7"]["theirs"][case["name"]])
        ours = _comparable(case, by_reader["ours"]["ours"][case["name"]])
        assert theirs == ours, case["name"]
    _report("store_cross_reads.txt",
            f"cross-reads: 1.7.7 read {cross['1.7.7']} of our stores, we read "
            f"{cross['ours']} of 1.7.7's, each exactly as its own")
    assert cross == {"1.7.7": 12, "ours": 12}


def _files(store):
    return {p.name: p.read_bytes() for p in sorted(store.iterdir())}


def _entries(loc_bytes):
    return [tuple(int.from_bytes(loc_bytes[i + k:i + k + 4], "little")
                  for k in (0, 4, 8, 12))
            for i in range(0, len(loc_bytes), 16)]


def _frames(files):
    """Each physical record's stored bytes, from the record table."""
    frames = []
    for offset, phys, logic, chunk in _entries(files.get("0.loc", b"")):
        data = files[f"{chunk}.chunk"]
        frames.append((logic, data[offset:offset + phys]))
    return frames


def test_the_files_are_the_references(written):
    root, cases = written
    lines, identical_frames, all_frames = [], 0, 0
    for case in cases:
        theirs = _files(root / "theirs" / case["name"])
        ours = _files(root / "ours" / case["name"])
        name = case["name"]
        assert sorted(theirs) == sorted(ours), name
        assert theirs["store.zr"] == ours["store.zr"], name
        if case["codec"] == ZSTD_DICT:
            assert theirs["dict.zr"] == ours["dict.zr"], name
            their_frames, our_frames = _frames(theirs), _frames(ours)
            assert [f[0] for f in their_frames] == [f[0] for f in our_frames]
            same = sum(a == b for a, b in zip(their_frames, our_frames))
            identical_frames += same
            all_frames += len(our_frames)
            lines.append(f"{name}: store.zr, dict.zr identical; "
                         f"{same}/{len(our_frames)} frames identical")
            continue
        differing = [f for f in theirs if theirs[f] != ours[f]]
        if differing and case["kind"] == "ragged" and case["codec"] != "raw":
            assert set(differing) <= {"0.loc", "0.chunk"}, (name, differing)
            assert _frames(theirs) == _frames(ours), name
            assert ([e[1:] for e in _entries(theirs["0.loc"])] ==
                    [e[1:] for e in _entries(ours["0.loc"])]), name
            lines.append(f"{name}: identical but for 1.7.7's placement of "
                         f"frames within a record (frames, meta.zr, store.zr "
                         f"identical)")
            continue
        assert not differing, f"{name}: {differing} differ"
        lines.append(f"{name}: all {len(theirs)} files identical "
                     f"({', '.join(sorted(theirs))})")
    lines.append(f"zstd_dict frames identical: {identical_frames}/{all_frames}")
    _report("store_bytes.txt", "\n".join(lines))


def test_the_same_samples_train_the_same_dictionary(written):
    root, _ = written
    from loaderx.utils import train_dict

    samples = [bytes.fromhex(s)
               for s in json.loads((root / "samples.json").read_text())]
    ours = train_dict(samples, tier="fast")
    assert ours == (root / "dict.zr").read_bytes()
    # An ndarray source samples the same strided rows on both sides.
    script = ("import json, sys, numpy as np\n"
              "from loaderx.utils import train_dict\n"
              "rows = np.load(sys.argv[1])\n"
              "print(json.dumps({'fast': train_dict(rows, tier='fast').hex(),"
              " 'balanced': train_dict(rows).hex()}))\n")
    import numpy as np

    rows = np.frombuffer(b"".join(samples * 4), np.uint8).reshape(-1, 32)
    np.save(root / "rows.npy", rows)
    theirs = reference.run_reference_json(script, root / "rows.npy")
    assert reference.run_here_json(script, root / "rows.npy") == theirs


def _superset(theirs, ours):
    """Our outcome matches theirs: the same value, or an exception that is
    every kind theirs is (ours may be more, e.g. also IndexError) with the
    same code where theirs has one."""
    if "ok" in theirs:
        return ours == theirs
    return ("error" in ours and set(theirs["error"]) <= set(ours["error"])
            and (theirs["code"] is None or theirs["code"] == ours["code"]))


def test_the_same_api_script_gives_the_same_results(tmp_path):
    (tmp_path / "theirs").mkdir()
    (tmp_path / "ours").mkdir()
    theirs = reference.run_reference_json(store_cases.API_SCRIPT,
                                          tmp_path / "theirs")
    ours = reference.run_here_json(store_cases.API_SCRIPT, tmp_path / "ours")
    assert sorted(theirs) == sorted(ours)
    differing = {step: (theirs[step], ours[step]) for step in theirs
                 if not _superset(theirs[step], ours[step])}
    assert not differing, json.dumps(differing, indent=1)[:4000]
    errors = sum("error" in outcome for outcome in theirs.values())
    _report("store_api.txt",
            f"API script: {len(theirs)} steps ({errors} raising) give the same "
            f"results and exception kinds/codes on both sides")


# Where 1.7.7's behaviour is unclear we chose differently, on purpose
# (README: "Compatibility with loaderx 1.7.7"). Each such input, on both.
DIFFERENCES = store_cases._COMMON + r'''
import pathlib
root = pathlib.Path(sys.argv[1])
out = {}
def step(name, fn):
    try:
        out[name] = {"ok": plain(fn())}
    except Exception as e:
        out[name] = {"error": type(e).__name__, "code": getattr(e, "code", None),
                     "index_error": isinstance(e, IndexError)}
ds = DenseStore(root / "d", np.int32, (), codec="raw")
ds.append(np.arange(4, dtype=np.int32))
step("below_minus_len", lambda: ds[-10])
step("float_indices", lambda: ds[np.array([0.7, 2.2])])
step("short_mask", lambda: ds[np.array([False, True])])
ds.close()
DenseStore(root / "u", np.int32, ()).close()
(root / "u" / "store.zr").unlink()
step("unfinished_with_dtype", lambda: len(DenseStore(root / "u", np.int32, ())))
padded = np.dtype({"names": ["a", "b"], "formats": ["<i4", "<f8"],
                   "offsets": [0, 8], "itemsize": 24})
DenseStore(root / "p", padded, (1,)).close()
step("padded_dtype_comes_back", lambda: DenseStore(root / "p").dtype == padded)
print(json.dumps(out))
'''


def test_the_deliberate_differences(tmp_path):
    (tmp_path / "theirs").mkdir()
    (tmp_path / "ours").mkdir()
    theirs = reference.run_reference_json(DIFFERENCES, tmp_path / "theirs")
    ours = reference.run_here_json(DIFFERENCES, tmp_path / "ours")
    assert theirs["below_minus_len"]["error"] == "OverflowError"
    assert ours["below_minus_len"]["code"] == -3
    assert ours["below_minus_len"]["index_error"]
    assert "ok" in theirs["float_indices"]           # truncated to [0, 2]
    assert ours["float_indices"]["error"] == "TypeError"
    assert "ok" in theirs["short_mask"]              # selects record 1
    assert ours["short_mask"]["code"] == -3
    assert theirs["unfinished_with_dtype"]["code"] == -8
    assert ours["unfinished_with_dtype"] == {"ok": 0}   # created again
    assert theirs["padded_dtype_comes_back"] == {"ok": False}
    assert ours["padded_dtype_comes_back"] == {"ok": True}
