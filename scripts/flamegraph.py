#!/usr/bin/env python3
"""A flame graph (SVG) from `perf script -F comm,tid,ip,sym` output, standard library only.

  perf record -e cpu-clock -F 499 --call-graph dwarf -o perf.data -- kacl serve ...
  perf script -i perf.data -F comm,tid,ip,sym > perf.script
  python3 scripts/flamegraph.py perf.script "title" > docs/flame.svg

Stacks are folded per thread name; frames narrower than 0.1% are dropped.
"""

import html
import re
import sys
from collections import defaultdict


def fold(lines):
    stacks = defaultdict(int)
    comm, frames = None, []
    for line in lines:
        if not line.strip():
            if comm is not None and frames:
                stacks[tuple([comm] + frames[::-1])] += 1
            comm, frames = None, []
        elif not line[0].isspace():
            comm = line.split()[0]
        else:
            parts = line.strip().split(None, 1)
            sym = parts[1] if len(parts) > 1 else "[unknown]"
            sym = re.sub(r" \(inlined\)$", "", sym)
            sym = re.sub(r"::h[0-9a-f]{16}$", "", sym)
            frames.append(sym)
    if comm is not None and frames:
        stacks[tuple([comm] + frames[::-1])] += 1
    return stacks


def tree(stacks):
    root = {"n": 0, "c": {}}
    for stack, count in stacks.items():
        node = root
        node["n"] += count
        for frame in stack:
            node = node["c"].setdefault(frame, {"n": 0, "c": {}})
            node["n"] += count
    return root


def color(name):
    h = sum(ord(c) for c in name) % 60
    if name.startswith("kacl"):
        return f"rgb(230,{120 + h},60)"
    if "redb" in name:
        return f"rgb(90,{150 + h // 2},220)"
    if name.startswith("mi_") or "alloc" in name or "free" in name:
        return f"rgb(200,{90 + h},200)"
    return f"rgb(225,{170 + h // 2},80)"


def main():
    path, title = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "flame graph"
    with open(path, encoding="utf-8", errors="replace") as f:
        root = tree(fold(f))
    width, row = 1600.0, 16
    total = root["n"] or 1
    rects = []
    depth_max = [0]

    def walk(node, name, x, depth):
        w = width * node["n"] / total
        if w < width * 0.001:
            return
        depth_max[0] = max(depth_max[0], depth)
        if name is not None:
            rects.append((x, depth, w, name, node["n"]))
        cx = x
        for child, sub in sorted(node["c"].items()):
            walk(sub, child, cx, depth + 1)
            cx += width * sub["n"] / total

    walk(root, None, 0.0, 0)
    height = (depth_max[0] + 3) * row
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'font-family="monospace" font-size="11">',
        f'<text x="4" y="14" font-size="13">{html.escape(title)} ({total} samples)</text>',
    ]
    for x, depth, w, name, n in rects:
        y = height - (depth + 1) * row
        label = html.escape(name)
        pct = 100.0 * n / total
        out.append(
            f'<g><title>{label} ({n} samples, {pct:.1f}%)</title>'
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" fill="{color(name)}"/>'
        )
        chars = int(w / 6.6)
        if chars > 3:
            text = name if len(name) <= chars else name[: chars - 2] + ".."
            out.append(f'<text x="{x + 2:.1f}" y="{y + 11}">{html.escape(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
