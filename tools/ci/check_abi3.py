"""Checks that a Python extension uses only Python's limited API (abi3).

    python3 tools/ci/check_abi3.py EXTENSION.so [--stable-abi TOML] [--version 3.11]

An abi3 module loads on every CPython from `--version` on only if every
Python symbol it imports is in the stable ABI of that version. CPython's
own list of that ABI, with the version that added each symbol, is
`Misc/stable_abi.toml` in its source; tools/ci/pythons.sh keeps that source
in the dependency cache, where this looks by default. The extension's
imports are its undefined dynamic symbols (`nm -D --undefined-only`); the
ones named Py*/_Py* must all be listed, added at `--version` or earlier.
Prints what it checked; exits 1 naming every symbol that is not.
"""

import argparse
import glob
import os
import subprocess
import sys
import tomllib


def default_stable_abi():
    cache = os.environ.get("LOADERX_CACHE", "/var/tmp/loaderx-cache")
    found = sorted(glob.glob(
        os.path.join(cache, "python-src", "python3.*", "Misc", "stable_abi.toml")))
    return found[-1] if found else None


def stable_abi(path, version):
    """The symbols of the stable ABI as of `version` (a (major, minor))."""
    with open(path, "rb") as f:
        table = tomllib.load(f)
    names = set()
    for kind in ("function", "data"):
        for name, entry in table.get(kind, {}).items():
            added = tuple(int(part) for part in entry["added"].split("."))
            if added <= version:
                names.add(name)
    return names


def python_imports(extension):
    out = subprocess.run(["nm", "-D", "--undefined-only", extension],
                         check=True, capture_output=True, text=True).stdout
    symbols = (line.split()[-1].split("@")[0] for line in out.splitlines()
               if line.strip())
    return sorted(s for s in symbols if s.startswith(("Py", "_Py")))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extension")
    parser.add_argument("--stable-abi", default=default_stable_abi())
    parser.add_argument("--version", default="3.11")
    args = parser.parse_args(argv)
    if not args.stable_abi or not os.path.exists(args.stable_abi):
        print("check_abi3: no Misc/stable_abi.toml (run tools/ci/pythons.sh, "
              "or pass --stable-abi)", file=sys.stderr)
        return 2
    version = tuple(int(part) for part in args.version.split("."))
    allowed = stable_abi(args.stable_abi, version)
    imports = python_imports(args.extension)
    outside = [s for s in imports if s not in allowed]
    if not imports:
        print(f"check_abi3: {args.extension} imports no Python symbol",
              file=sys.stderr)
        return 1
    if outside:
        print(f"check_abi3: {args.extension} imports {len(outside)} symbols "
              f"outside Python {args.version}'s stable ABI: "
              + " ".join(outside), file=sys.stderr)
        return 1
    print(f"check_abi3: {len(imports)} Python symbols, all in the stable ABI "
          f"of {args.version} ({os.path.basename(args.extension)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
