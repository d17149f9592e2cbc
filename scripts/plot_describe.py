#!/usr/bin/env python3
"""Plots DescribeAcls latency against the number of ACLs the server holds, from the series
that scripts/bench_whole_server.sh writes (series-all-N.json, series-principal-N.json, the
JSON reports of `kacl perf acls`): full describe (every ACL, received as bindings by
kacl-client) and describe by principal (10 matches), p50 and p99, on log-log axes.

  python3 scripts/plot_describe.py [BENCH_OUT_DIR] [OUTPUT.svg]

Defaults: bench-out/ and docs/describe-latency.svg; the numbers plotted also go to a .csv
next to the SVG. Standard library only: the SVG is written by hand.
"""

import json
import math
import pathlib
import sys

SIZES = [10_000, 100_000, 500_000, 1_000_000, 2_000_000]
WIDTH, HEIGHT = 800, 440
LEFT, RIGHT, TOP, BOTTOM = 80, 230, 50, 60
SERIES = [
    # (file prefix, label, what it returns, colour)
    ("series-all", "full describe", "every ACL, as bindings", "#c0392b"),
    ("series-principal", "describe by principal", "10 ACLs", "#2471a3"),
]


def latency(out_dir, prefix, size):
    path = out_dir / f"{prefix}-{size}.json"
    if not path.exists():
        return None
    report = json.loads(path.read_text())
    op = next(o for o in report["operations"] if o["name"] == "describeAcls")
    return op["latency_ms"]["p50"], op["latency_ms"]["p99"], op["requests"]


def fmt_count(n):
    if n >= 1_000_000:
        return f"{n / 1_000_000:g}M"
    return f"{n / 1000:g}k"


def fmt_ms(ms):
    if ms >= 1000:
        return f"{ms / 1000:g} s"
    if ms >= 1:
        return f"{ms:g} ms"
    return f"{ms * 1000:g} µs"


def main():
    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench-out")
    svg_path = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "docs/describe-latency.svg")
    data = {}
    for prefix, *_ in SERIES:
        data[prefix] = [(n, latency(out_dir, prefix, n)) for n in SIZES]
        data[prefix] = [(n, v) for n, v in data[prefix] if v is not None]
    values = [v for points in data.values() for _, (p50, p99, _) in points for v in (p50, p99)]
    if not values:
        sys.exit(f"no series-*.json in {out_dir}")

    x_lo, x_hi = math.log10(SIZES[0]) - 0.1, math.log10(SIZES[-1]) + 0.1
    y_lo = math.floor(math.log10(min(values)))
    # Headroom above the slowest point (and above the 1 s target line).
    y_hi = math.ceil(math.log10(max(values) * 1.5))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(n):
        return LEFT + (math.log10(n) - x_lo) / (x_hi - x_lo) * plot_w

    def y(ms):
        return TOP + plot_h - (math.log10(ms) - y_lo) / (y_hi - y_lo) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">'
        "DescribeAcls latency against ACLs held (loopback, one connection)</text>",
    ]
    # Grid and axes.
    for decade in range(y_lo, y_hi + 1):
        for mult in (1, 2, 5):
            ms = mult * 10**decade
            if ms > 10**y_hi:
                continue
            yy = y(ms)
            colour = "#bbbbbb" if mult == 1 else "#eeeeee"
            parts.append(
                f'<line x1="{LEFT}" y1="{yy:.1f}" x2="{LEFT + plot_w}" y2="{yy:.1f}" stroke="{colour}"/>'
            )
            if mult == 1:
                parts.append(
                    f'<text x="{LEFT - 8}" y="{yy + 4:.1f}" text-anchor="end">{fmt_ms(ms)}</text>'
                )
    for n in SIZES:
        xx = x(n)
        parts.append(
            f'<line x1="{xx:.1f}" y1="{TOP}" x2="{xx:.1f}" y2="{TOP + plot_h}" stroke="#eeeeee"/>'
        )
        parts.append(
            f'<text x="{xx:.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{fmt_count(n)}</text>'
        )
    parts.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>'
    )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 14}" text-anchor="middle">'
        "ACLs held by the server (AuthorizerBenchmark shape)</text>"
    )
    parts.append(
        f'<text x="18" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {TOP + plot_h / 2})">latency (log scale)</text>'
    )
    # Target: a full describe of 2M ACLs within 1 s.
    if y_lo <= 3 <= y_hi:
        parts.append(
            f'<line x1="{LEFT}" y1="{y(1000):.1f}" x2="{LEFT + plot_w}" y2="{y(1000):.1f}" '
            'stroke="#555" stroke-dasharray="2,3"/>'
        )
        parts.append(
            f'<text x="{LEFT + 4}" y="{y(1000) - 4:.1f}" fill="#555">target: 2M in 1 s</text>'
        )
    # Series: p50 solid with dots, p99 dashed.
    legend_y = TOP + 10
    for prefix, label, returns, colour in SERIES:
        points = data[prefix]
        if not points:
            continue
        for index, dash in ((0, ""), (1, ' stroke-dasharray="6,4"')):
            path = " ".join(
                f"{'M' if i == 0 else 'L'}{x(n):.1f},{y(v[index]):.1f}" for i, (n, v) in enumerate(points)
            )
            parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for n, (p50, _, _) in points:
            parts.append(f'<circle cx="{x(n):.1f}" cy="{y(p50):.1f}" r="3.5" fill="{colour}"/>')
        lx = LEFT + plot_w + 14
        parts.append(
            f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 24}" y2="{legend_y}" stroke="{colour}" stroke-width="2"/>'
        )
        parts.append(f'<text x="{lx + 30}" y="{legend_y + 4}">{label}</text>')
        parts.append(f'<text x="{lx + 30}" y="{legend_y + 18}" fill="#555">{returns}</text>')
        parts.append(f'<text x="{lx + 30}" y="{legend_y + 32}" fill="#555">p50 solid, p99 dashed</text>')
        legend_y += 56
    parts.append("</svg>")

    svg_path.parent.mkdir(parents=True, exist_ok=True)
    svg_path.write_text("\n".join(parts) + "\n")
    csv_path = svg_path.with_suffix(".csv")
    rows = ["series,acls,p50_ms,p99_ms,requests"]
    for prefix, *_ in SERIES:
        for n, (p50, p99, requests) in data[prefix]:
            rows.append(f"{prefix},{n},{p50:.3f},{p99:.3f},{requests}")
    csv_path.write_text("\n".join(rows) + "\n")
    print(f"wrote {svg_path} and {csv_path}")


if __name__ == "__main__":
    main()
