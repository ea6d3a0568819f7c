#!/usr/bin/env python3
"""Draws README.md's headline table as a bar chart (SVG, no dependencies).

Reads the table under README.md's "Headline numbers" heading and draws, per
workload, one bar per ratio column on a log scale (1x marked), so the chart
can never say something the table does not. `--check` fails if the
committed chart differs from what the table draws (the docs test runs it).

  headline_chart.py [--readme README.md] [--out docs/img/headline.svg] [--check]
"""

import argparse
import math
import sys

COLORS = ["#1f6feb", "#2da44e", "#bf8700", "#8250df"]


def read_table(readme):
    lines = open(readme, encoding="utf-8").read().split("\n")
    start = lines.index("## Headline numbers")
    rows = []
    for line in lines[start:]:
        if line.startswith("## ") and rows:
            break
        if line.startswith("|") and "---" not in line:
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows and not line.startswith("|"):
            break
    header, body = rows[0], rows[1:]
    series = header[1:]
    data = []
    for row in body:
        values = []
        for cell in row[1:]:
            values.append(float(cell.rstrip("x")) if cell.endswith("x") else None)
        data.append((row[0], values))
    return series, data


def draw(series, data):
    label_w, bar_h, gap, width = 300, 9, 10, 820
    plot_w = width - label_w - 60
    top = 40
    group_h = bar_h * len(series) + gap
    height = top + group_h * len(data) + 20
    top_value = max(v for _, vs in data for v in vs if v)
    decades = math.ceil(math.log10(top_value))

    def x(value):
        return label_w + plot_w * math.log10(value) / decades

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, name in enumerate(series):
        out.append(f'<rect x="{20 + 190 * i}" y="8" width="10" height="10" '
                   f'fill="{COLORS[i % len(COLORS)]}"/>')
        out.append(f'<text x="{20 + 190 * i + 14}" y="17">{name}</text>')
    for d in range(decades + 1):
        out.append(f'<line x1="{x(10 ** d):.1f}" y1="{top - 6}" '
                   f'x2="{x(10 ** d):.1f}" y2="{height - 18}" '
                   f'stroke="{"#333" if d == 0 else "#ddd"}"/>')
        out.append(f'<text x="{x(10 ** d):.1f}" y="{height - 4}" '
                   f'text-anchor="middle">{10 ** d}x</text>')
    for g, (workload, values) in enumerate(data):
        y0 = top + g * group_h
        out.append(f'<text x="{label_w - 8}" y="{y0 + group_h / 2:.1f}" '
                   f'text-anchor="end">{workload}</text>')
        for i, value in enumerate(values):
            if value is None:
                continue
            y = y0 + i * bar_h
            left, right = min(x(1), x(value)), max(x(1), x(value))
            out.append(f'<rect x="{left:.1f}" y="{y}" width="{right - left:.1f}" '
                       f'height="{bar_h - 1}" fill="{COLORS[i % len(COLORS)]}"/>')
            out.append(f'<text x="{right + 3:.1f}" y="{y + bar_h - 1}" '
                       f'font-size="9">{value:g}x</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--readme", default="README.md")
    parser.add_argument("--out", default="docs/img/headline.svg")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    svg = draw(*read_table(args.readme))
    if args.check:
        if open(args.out, encoding="utf-8").read() != svg:
            print(f"{args.out} is not what {args.readme}'s headline table draws; "
                  "run tools/docs/headline_chart.py", file=sys.stderr)
            return 1
        return 0
    open(args.out, "w", encoding="utf-8").write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
