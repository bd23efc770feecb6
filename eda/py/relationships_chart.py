# The diagram of the tables and their relationships, drawn by matplotlib and shown as SVG.
import io

DIAGRAM_TABLES = 12  # tables drawn at most: those in relationships first
CHAR_INCHES, LINE_INCHES = 0.075, 0.19  # about how wide a character and how tall a line of 9-point text are
LABEL_CHARS = 28  # an arrow's label is cut to this many characters a line
LOOP = "arc,angleA=0,angleB=0,armA=22,armB=22,rad=6"  # a table's column referring to its own key: out right and back
SVG_MIME = "image/svg+xml"  # the mime types of the diagram and of its title
PLAIN_MIME = "text/plain"
# The diagram is SVG, a seventh of its PNG's bytes: text as text, not glyph outlines (a browser without
# these fonts falls back to its sans-serif), ids from a fixed salt and no date, so a re-run (in Jupyter
# too) writes the same bytes.
SVG_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "relationships", "font.family": [*plt.rcParams["font.family"], "sans-serif"]}


def diagram_text(text, width=LABEL_CHARS):
    """Text for the drawing: cut to width characters, "$" escaped (matplotlib reads $...$ as math)."""
    text = str(text)
    return (text[:width - 1] + "…" if len(text) > width else text).replace("$", r"\$")


def drawn_tables(rel):
    """The tables drawn, in the input's order: those in a relationship first, at most DIAGRAM_TABLES."""
    linked = {t for r in rel["relationships"] for t in (r["from"], r["to"])}
    chosen = [t for t in rel["tables"] if t["name"] in linked] + [t for t in rel["tables"] if t["name"] not in linked]
    chosen = {t["name"] for t in chosen[:DIAGRAM_TABLES]}
    return [t for t in rel["tables"] if t["name"] in chosen]


def acyclic(names, edges):
    """The edges (a, b) that keep the graph without cycles, in order: one that would close a
    cycle (b already reaches a) is left out of the layout (it is still drawn)."""
    kept, after = [], {n: set() for n in names}
    for a, b in edges:
        seen, todo = set(), [b]
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo += after[n]
        if a != b and a not in seen:
            kept.append((a, b))
            after[a].add(b)
    return kept


def diagram_columns(names, edges):
    """Columns of the drawing, left to right: a table sits right of every table that refers to
    it; within a column, near the tables it is linked to (their mean row), then in input order."""
    depth = {n: 0 for n in names}
    dag = acyclic(names, edges)
    for _ in names:
        for a, b in dag:
            depth[b] = max(depth[b], depth[a] + 1)
    columns = [[n for n in names if depth[n] == d] for d in range(max(depth.values(), default=-1) + 1)]
    row = {n: i for i, n in enumerate(columns[0])} if columns else {}
    for column in columns[1:]:
        def place(n):
            near = [row[a] for a, b in edges if b == n and a in row] + [row[b] for a, b in edges if a == n and b in row]
            return (sum(near) / len(near) if near else len(row), names.index(n))
        column.sort(key=place)
        row.update({n: i for i, n in enumerate(column)})
    return columns


def table_box_text(t):
    keys = ", ".join(diagram_text(k, 24) for k in t["keys"][:3]) + (f" +{len(t['keys']) - 3}" if len(t["keys"]) > 3 else "")
    lines = [diagram_text(t["name"], 32), f"{t['rows']:,} rows × {t['columns']:,} columns",
             f"key: {keys}" if keys else "no single-column key"]
    lists = [diagram_text(c["column"], 24) for c in t["list_columns"]]
    if lists:
        lines.append("lists: " + ", ".join(lists[:3]) + (f" +{len(lists) - 3}" if len(lists) > 3 else ""))
    return "\n".join(lines)


def edge_label(r):
    source = diagram_text(r["from_column"]) + ("[]" if r["list"] else "")
    return f"{source} → {diagram_text(r['to_column'])}\n{r['share_rows']:.1%} of rows match"


def box_sizes(texts):
    """Each box's (width, height) in inches, from its lines of text."""
    return {n: (max(len(line) for line in t.split("\n")) * CHAR_INCHES + 0.4, (t.count("\n") + 1) * LINE_INCHES + 0.4)
            for n, t in texts.items()}


def layout_boxes(columns, sizes, gap):
    """Where the boxes go, in inches: columns side by side with gap between them, each column's
    boxes stacked and centred vertically. A dict of the boxes' centres and sizes, each table's
    column and each column's left and right edges, and the drawing's width and height."""
    heights = [sum(sizes[n][1] for n in col) + 0.5 * (len(col) - 1) for col in columns]
    top, x, centres, bounds = max(heights) / 2, 0.0, {}, []
    for col, height in zip(columns, heights):
        width, y = max(sizes[n][0] for n in col), top - (max(heights) - height) / 2
        for n in col:
            centres[n] = (x + width / 2, y - sizes[n][1] / 2)
            y -= sizes[n][1] + 0.5
        bounds.append((x, x + width))
        x += width + gap
    return {"centres": centres, "sizes": sizes, "bounds": bounds, "width": x - gap, "height": max(heights),
            "column": {n: i for i, col in enumerate(columns) for n in col}}


def edge_sides(r, layout):
    """(side of the referring box, side of the referred box) an arrow leaves and enters by."""
    a, b = layout["column"][r["from"]], layout["column"][r["to"]]
    centres = layout["centres"]
    if a != b:
        return ("right", "left") if a < b else ("left", "right")
    if r["from"] == r["to"]:
        return "right", "right"
    return ("bottom", "top") if centres[r["from"]][1] > centres[r["to"]][1] else ("top", "bottom")


SIDES = {"right": (1, 0), "left": (-1, 0), "top": (0, 1), "bottom": (0, -1)}


def anchors(links, sides):
    """Where each arrow meets each box: the arrows on one side of a box spread evenly along it, as
    fractions of the box ((x, y), 0 to 1 from the bottom left)."""
    users = {}
    for i, (src, dst) in enumerate(sides):
        users.setdefault((links[i]["from"], src), []).append((i, 0))
        users.setdefault((links[i]["to"], dst), []).append((i, 1))
    out = [[None, None] for _ in links]
    for (_, side), uses in users.items():
        for k, (i, end) in enumerate(uses):
            spread = (k + 1) / (len(uses) + 1)
            dx, dy = SIDES[side]
            out[i][end] = ((dx + 1) / 2, 1 - spread) if dx else (spread, (dy + 1) / 2)
    return out


def draw_relationships(rel):
    """The diagram: a box per table, an arrow per relationship (dashed red when rows are orphans)."""
    tables = drawn_tables(rel)
    names = [t["name"] for t in tables]
    links = [r for r in rel["relationships"] if r["from"] in names and r["to"] in names]
    columns = diagram_columns(names, [(r["from"], r["to"]) for r in links])
    texts = {t["name"]: table_box_text(t) for t in tables}
    label_chars = max([len(line) for r in links for line in edge_label(r).split("\n")] + [10])
    gap = label_chars * CHAR_INCHES * 0.9 + 0.8
    layout = layout_boxes(columns, box_sizes(texts), gap)
    right = layout["width"] + (gap if any(r["from"] == r["to"] for r in links) else 0)  # room for loops
    fig, ax = plt.subplots(figsize=(right + 0.8, layout["height"] + 1.0))
    ax.set_xlim(-0.4, right + 0.4)
    ax.set_ylim(-layout["height"] / 2 - 0.4, layout["height"] / 2 + 0.6)
    ax.axis("off")
    boxes = {}
    for t in tables:
        keyed = bool(t["keys"])
        boxes[t["name"]] = ax.text(*layout["centres"][t["name"]], texts[t["name"]], ha="center", va="center",
                                   fontsize=9, linespacing=1.4, zorder=3,
                                   bbox=dict(boxstyle="round,pad=0.5", lw=1, fc="#eef2f9" if keyed else "#f4f4f4",
                                             ec="#3b5b92" if keyed else "#999999"))
    ends = anchors(links, [edge_sides(r, layout) for r in links])
    points = apart([label_point(r, e, layout) for r, e in zip(links, ends)])
    for r, e, point in zip(links, ends, points):
        draw_edge(ax, r, boxes, e, point)
    shown = "" if len(tables) == len(rel["tables"]) else f" ({len(tables)} of {len(rel['tables'])} tables)"
    ax.set_title("Tables and their relationships" + shown)
    return fig


def label_point(r, ends, layout):
    """Where an arrow's label goes, in inches: on the straight line between its ends, in the
    middle of the first gap between columns it crosses (so no box in between covers it)."""
    def at(name, frac):
        (x, y), (w, h) = layout["centres"][name], layout["sizes"][name]
        return x + (frac[0] - 0.5) * w, y + (frac[1] - 0.5) * h
    (x0, y0), (x1, y1) = at(r["from"], ends[0]), at(r["to"], ends[1])
    a, b = layout["column"][r["from"]], layout["column"][r["to"]]
    if r["from"] == r["to"]:
        half = max(len(line) for line in edge_label(r).split("\n")) * CHAR_INCHES * 0.45
        return x0 + 0.45 + half, (y0 + y1) / 2  # right of the loop
    if a == b:
        return (x0 + x1) / 2, (y0 + y1) / 2
    bounds = layout["bounds"]
    x = (bounds[a][1] + bounds[a + 1][0]) / 2 if a < b else (bounds[a - 1][1] + bounds[a][0]) / 2
    return x, y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def apart(points, height=2.3 * LINE_INCHES):
    """The labels' points moved apart vertically where labels in the same gap would overlap."""
    points = list(points)
    order = sorted(range(len(points)), key=lambda i: (round(points[i][0], 6), -points[i][1], i))
    for before, i in zip(order, order[1:]):
        (xb, yb), (x, y) = points[before], points[i]
        if round(xb, 6) == round(x, 6) and yb - y < height:
            points[i] = (x, yb - height)
    return points


def draw_edge(ax, r, boxes, ends, point):
    """One arrow from the referring box to the referred one (under the boxes), and its label."""
    broken = r["orphan_rows"] > 0
    colour = "#c0392b" if broken else "#3b5b92"
    source, target = boxes[r["from"]], boxes[r["to"]]
    ax.annotate("", xy=ends[1], xycoords=target, xytext=ends[0], textcoords=source, zorder=2,
                arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.3, linestyle="--" if broken else "-",
                                shrinkA=0, shrinkB=0, patchA=source.get_bbox_patch(), patchB=target.get_bbox_patch(),
                                connectionstyle=LOOP if r["from"] == r["to"] else "arc3,rad=0"))
    # On a white ground, so the arrows it crosses do not cross its text (a white outline would make
    # the text outlines in the SVG).
    ax.text(*point, edge_label(r), ha="center", va="center", fontsize=7.5, color=colour,
            zorder=4, bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))


def diagram_svg(fig):
    """The figure as an SVG document, from its <svg> element on, without metadata."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight",
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buf.getvalue().decode()
    return svg[svg.index("<svg"):]


with plt.rc_context(SVG_STYLE):
    relationships_figure = draw_relationships(relationships)
    display({SVG_MIME: diagram_svg(relationships_figure), PLAIN_MIME: relationships_figure.axes[0].get_title()},
            raw=True)
plt.close(relationships_figure)
