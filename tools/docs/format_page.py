#!/usr/bin/env python3
"""Writes docs/format.md, the on-disk format page, from the format headers.

Each file of a store is documented byte for byte once, in the comment that
opens the header whose code encodes and decodes it (src/store_format.h and
the others listed in SOURCES). This page collects those comments verbatim,
so it cannot drift from the code; `--check` fails when the committed page
differs from what the headers give (the docs test runs it). After changing
a format comment, run this script and commit the page.

  format_page.py [--out docs/format.md] [--check]
"""

import argparse
import os
import sys

# (heading, header) in the order a reader meets the files.
SOURCES = [
    ("The record store: meta.zr, the record table and chunks",
     "src/store_format.h"),
    ("The typed header: store.zr", "src/typed_header.h"),
    ("Ragged records' shape records", "src/shape_record.h"),
    ("The checksum sidecar: checksums.lx", "src/integrity_format.h"),
    ("The maintenance journal: journal.lx", "src/journal.h"),
    ("Store sets: the manifest", "src/store_set_format.h"),
]

INTRO = """# On-disk format

A store is a directory of files. The record store's files (`meta.zr`,
`dict.zr`, `*.loc`, `*.chunk`) and the typed header (`store.zr`) are
loaderx 1.7.7's, byte for byte: either implementation reads and writes
what the other wrote. `checksums.lx` and `journal.lx` are loaderx's own
additions, which 1.7.7 ignores. Versioning: `meta.zr` carries version 4,
exactly (1.7.7 rejects 3); every file of loaderx's own carries a magic and
a version, and a reader refuses versions it does not know. Why the files
are shaped as they are is in [design.md](design.md); what survives which
failure is in [durability.md](durability.md).

Each section below is the comment that opens the header whose code encodes
and decodes that file, verbatim (this page is generated from them by
`tools/docs/format_page.py`, and the tests check that it is current).
"""


def opening_comment(path):
    lines = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("//"):
            break
        lines.append(line[3:].rstrip() if line.startswith("// ") else
                     line[2:].rstrip())
    return "\n".join(lines).strip("\n")


def page(root):
    parts = [INTRO]
    for heading, source in SOURCES:
        path = os.path.join(root, source)
        if not os.path.exists(path):
            continue
        parts.append(f"## {heading}\n\nFrom `{source}`:\n\n```text\n"
                     f"{opening_comment(path)}\n```\n")
    return "\n".join(parts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/format.md")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    text = page(root)
    if args.check:
        if open(args.out, encoding="utf-8").read() != text:
            print(f"{args.out} differs from the format headers' comments; run "
                  "tools/docs/format_page.py and commit it", file=sys.stderr)
            return 1
        print(f"{args.out} matches the format headers")
        return 0
    open(args.out, "w", encoding="utf-8").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
