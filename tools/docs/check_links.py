#!/usr/bin/env python3
"""Fails, naming them, on broken relative links in Markdown pages.

Every `[text](target)` and `![alt](target)` outside code blocks whose
target is not a URL must name a file or folder that exists (relative to the
page), and a `#fragment` on a Markdown page must be one of that page's
heading anchors as GitHub makes them. External URLs are not fetched (CI has
no network).

  check_links.py PAGE.md...
"""

import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page):
    """GitHub's heading anchors of `page`."""
    found, seen, fence = set(), {}, False
    for line in open(page, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(page):
    problems, fence = [], False
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(
                os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                problems.append(f"{page}:{number}: {target}: no such file")
            elif fragment and resolved.endswith(".md") and \
                    fragment not in anchors(resolved):
                problems.append(f"{page}:{number}: {target}: no such heading")
    return problems


def main():
    problems = [p for page in sys.argv[1:] for p in broken_links(page)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"links: {len(sys.argv) - 1} pages checked, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
