#!/usr/bin/env python3
"""scripts/nboutputs.py OLD.ipynb NEW.ipynb: whether two analyst notebooks of the same data give the same
outputs, cell by cell (by tag; a cell with only its stage's tag by its place): streams, text, HTML, the JSON of analyst's MIME types and the PNG charts'
bytes. Prints one line per tagged code cell (same, or what differs) and exits 1 when any differs. Used to
check that a change to how the loader reads a file changes nothing the notebook shows (docs/benchmarks.md,
issue 36, round 3)."""
import json
import sys


def outputs(path):
    """{tag: [(output type, {MIME type: content} or stream text)]} of the notebook's tagged code cells."""
    cells = {}
    for i, cell in enumerate(json.load(open(path, encoding="utf-8"))["cells"]):
        tags = cell["metadata"].get("tags", [])
        named = [t for t in tags if not t.startswith("stage:")]
        if cell["cell_type"] != "code" or not tags:
            continue
        cells[named[0] if named else f"{tags[0]} cell {i}"] = [(o["output_type"], o.get("data") or "".join(o.get("text", [])))
                          for o in cell.get("outputs", [])]
    return cells


def main(old, new):
    a, b = outputs(old), outputs(new)
    differ = 0
    for tag in dict.fromkeys([*a, *b]):
        if a.get(tag) == b.get(tag):
            print(f"{tag}: same ({len(a[tag])} outputs)")
            continue
        differ += 1
        pairs = list(zip(a.get(tag, []), b.get(tag, [])))
        where = [i for i, (x, y) in enumerate(pairs) if x != y] or ["count"]
        print(f"{tag}: DIFFERS (outputs {where}; {len(a.get(tag, []))} against {len(b.get(tag, []))})")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
