"""Describe charts as plain data, for readers that cannot see the image.

The kernel driver renders each figure to PNG and then calls describe_figure()
(matplotlib, including pandas and seaborn plots) or describe_plotly() (a plotly
figure dict) so that a language model and an auditor can read what the chart
shows: its kind, titles, axis labels and the plotted numbers. Modelled on the
chart extraction of e2b's code-interpreter, with our own schema:

    {"kind", "title", "x_label", "y_label", "axes": [...], "truncated"}

A diagram (kind "diagram": boxes of text joined by arrows) has one series of
"nodes" (title: a box's first line, text) and "edges" (from, to, label, style).

Each axes entry has "kind", "title", "x_label", "y_label", "x_scale",
"y_scale", "x_tick_labels" and "series" (shape depends on the kind). When one
axes holds several kinds (a histogram with a KDE line, bars with a trend
line) its kind is "mixed" and each series carries its own "kind".

Both functions return JSON-safe values only (NaN/inf/NaT become None, numpy
types become Python ones) and never raise: a failure inside one axes yields
that axes with kind "unknown" and an "error" message.
"""

import math
from typing import Any

MAX_POINTS = 1000  # entries kept per list in a series; cutting sets "truncated"
MAX_CELLS = 10000  # heatmap cells kept: 1000 x 1000 cells would flood a prompt

_NO_LINE = ("None", "", " ")  # Line2D linestyles of marker-only lines


class _Caps:
    """Cuts lists to a limit and remembers whether anything was cut."""

    def __init__(self):
        self.truncated = False

    def __call__(self, seq, limit=MAX_POINTS):
        if len(seq) > limit:
            self.truncated = True
            return seq[:limit]
        return seq


# ---------------------------------------------------------------- values


def _iso(dt):
    """ISO text of a date/datetime; a zero UTC offset is dropped because
    matplotlib treats naive datetimes as UTC anyway."""
    try:
        if dt.tzinfo is not None and not dt.utcoffset():
            dt = dt.replace(tzinfo=None)
    except AttributeError:  # datetime.date has no tzinfo
        pass
    return dt.isoformat()


def _plain(v):
    """One value as a JSON-safe Python scalar (NaN, inf, NaT, masked -> None)."""
    import numpy as np

    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, np.ndarray):  # 0-d array
        v = v[()]
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    if v is np.ma.masked:
        return None
    if isinstance(v, np.datetime64):
        return None if np.isnat(v) else _iso(v.astype("datetime64[us]").item())
    if hasattr(v, "isoformat"):  # datetime, date, pandas Timestamp / NaT
        return None if v != v else _iso(v)
    if hasattr(v, "to_timestamp"):  # pandas Period
        return _iso(v.to_timestamp())
    return str(v)


def _clean(obj):
    """Deep copy of obj made of JSON-safe values only."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) or getattr(obj, "ndim", 0):  # numpy arrays too
        return [_clean(v) for v in obj]
    return _plain(obj)


def _float(v):
    """v as a finite float, else None (also for text and dates)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _floats(values):
    """Numbers of an array-like (masked entries included) as floats/None."""
    import numpy as np

    a = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan).ravel()
    return [x if math.isfinite(x) else None for x in a.tolist()]


def _num_text(v):
    """Short text of a position, e.g. "3" or "0.25" (no float noise)."""
    return format(float(v), ".10g")


def _label(artist):
    """The artist's user label; matplotlib's automatic "_child0" and the like
    mean "no label"."""
    text = artist.get_label()
    return "" if not text or str(text).startswith("_") else str(text)


def _err(e):
    return ("%s: %s" % (type(e).__name__, e))[:200]


def _result(kind, title, first, described, caps):
    return {
        "kind": kind,
        "title": title,
        "x_label": first.get("x_label", ""),
        "y_label": first.get("y_label", ""),
        "axes": described,
        "truncated": caps.truncated,
    }


def _summarize(described, suptitle, caps):
    """Top-level description from per-axes ones (empty axes are dropped)."""
    kept = [d for d in described if d["kind"] != "empty"]
    kinds = {d["kind"] for d in kept}
    kind = "empty" if not kept else kinds.pop() if len(kinds) == 1 else "mixed"
    first = kept[0] if kept else described[0] if described else {}
    title = suptitle or (first.get("title", "") if len(kept) <= 1 else "")
    return _result(kind, title, first, kept, caps)


def _combine(found):
    """(kind, series) for an axes from its (kind, series) pairs."""
    kinds = list(dict.fromkeys(k for k, _ in found))
    if len(kinds) == 1:
        return kinds[0], [s for _, s in found]
    return "mixed", [dict(kind=k, **s) for k, s in found]


# ---------------------------------------------------------------- matplotlib


def describe_figure(fig: Any) -> dict:
    """Describe a matplotlib Figure (already drawn by the caller)."""
    caps = _Caps()
    try:
        described = [_describe_axes(ax, caps) for ax in _data_axes(fig)]
        suptitle = getattr(fig, "_suptitle", None)  # Figure.get_suptitle is 3.8+
        out = _summarize(described, suptitle.get_text() if suptitle else "", caps)
    except Exception as e:  # never let a description break the user's cell
        out = _result("unknown", "", {}, [], caps)
        out["error"] = _err(e)
    out["truncated"] = caps.truncated
    return _clean(out)


def _data_axes(fig):
    """Visible axes of the figure, without colorbars."""
    cbar = set()
    for ax in fig.axes:
        for art in list(ax.images) + list(ax.collections):
            cb = getattr(art, "colorbar", None)
            if cb is not None:
                cbar.add(id(cb.ax))
    return [
        ax
        for ax in fig.axes
        if ax.get_visible()
        and id(ax) not in cbar
        and not hasattr(ax, "_colorbar")
        and ax.get_label() != "<colorbar>"
    ]


def _describe_axes(ax, caps):
    out = {"kind": "unknown", "title": "", "x_label": "", "y_label": "",
           "x_scale": "linear", "y_scale": "linear", "x_tick_labels": [], "series": []}
    try:
        out.update(
            title=ax.get_title() or ax.get_title("left") or ax.get_title("right"),
            x_label=ax.get_xlabel(), y_label=ax.get_ylabel(),
            x_scale=ax.get_xscale(), y_scale=ax.get_yscale())
        ticks = _tick_labels(ax.xaxis)
        out["x_tick_labels"] = caps(list(ticks.values())) if ticks else []
        out["kind"], out["series"] = _extract(ax, caps)
    except Exception as e:
        out.update(kind="unknown", series=[], error=_err(e))
    return out


def _extract(ax, caps):
    if getattr(ax, "name", "") == "3d":  # 2-D data of 3-D artists is a projection
        return "unknown", []
    from matplotlib.container import BarContainer, ErrorbarContainer

    used = set()  # ids of artists already explained by an earlier finder
    for c in ax.containers:  # error bar caps and bars are not data series
        eb = c.errorbar if isinstance(c, BarContainer) else c
        if isinstance(eb, ErrorbarContainer):
            _, caplines, barcols = eb.lines
            used.update(map(id, list(caplines) + list(barcols)))
    found = []
    for finder in (_diagrams, _pies, _heatmaps, _boxes, _bars, _stairs, _hexbins, _lines, _scatters):
        found += finder(ax, used, caps)
    if found:
        return _combine(caps(found))
    rest = [a for a in list(ax.lines) + list(ax.patches) + list(ax.collections)
            + list(ax.images) if id(a) not in used]
    return ("unknown" if rest else "empty"), []


def _tick_labels(axis):
    """{position: text} when the axis ticks carry text labels (bar categories,
    set_xticklabels, string data); None for numeric or date ticks."""
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    fmt = axis.get_major_formatter()
    # matplotlib 3.6 turns set_ticklabels() into a FuncFormatter over a dict
    fixed = isinstance(fmt, FuncFormatter) and getattr(
        getattr(fmt.func, "func", None), "__name__", "") == "_format_with_dict"
    if not (fixed or isinstance(fmt, (FixedFormatter, StrCategoryFormatter))):
        return None
    locs = axis.get_majorticklocs()
    texts = [str(t) for t in fmt.format_ticks(locs)]
    return {round(float(p), 9): t for p, t in zip(locs, texts) if t} or None


def _time_kind(axis):
    """"period" for pandas' regular-frequency date axes (values are Period
    ordinals), "date" for matplotlib date numbers, else None."""
    import matplotlib.dates as mdates

    fmt = axis.get_major_formatter()
    if type(fmt).__name__ == "TimeSeries_DateFormatter" and hasattr(fmt, "freq"):
        return "period"
    # _SwitchableDateConverter: matplotlib's converter for datetime64 data
    converters = tuple(c for c in (mdates.DateConverter,
                                   getattr(mdates, "_SwitchableDateConverter", None)) if c)
    # get_converter() since Matplotlib 3.10, which deprecates .converter
    # (a warning that would print into the cell's output).
    get_converter = getattr(axis, "get_converter", None)
    converter = get_converter() if get_converter else getattr(axis, "converter", None)
    if (isinstance(converter, converters)
            or isinstance(fmt, (mdates.DateFormatter, mdates.AutoDateFormatter,
                                mdates.ConciseDateFormatter))
            or isinstance(axis.get_major_locator(), mdates.DateLocator)):
        return "date"
    return None


def _time_text(axis, kind, v):
    if kind == "date":
        import matplotlib.dates as mdates
        return _iso(mdates.num2date(v))
    import pandas as pd
    freq = axis.get_major_formatter().freq
    return _iso(pd.Period(ordinal=int(round(v)), freq=freq).to_timestamp())


def _axis_values(axis, values):
    """Plotted coordinates as the reader knows them: ISO dates on date axes,
    tick texts when every value sits on a text tick, else numbers."""
    nums = _floats(values)
    kind = _time_kind(axis)
    if kind:
        return [None if v is None else _time_text(axis, kind, v) for v in nums]
    ticks = _tick_labels(axis)
    if ticks and nums and all(v is not None and round(v, 9) in ticks for v in nums):
        return [ticks[round(v, 9)] for v in nums]
    return nums


def _position_labels(axis, positions):
    """Category name for each bar/box/cell position: the nearest text tick
    (within half the tick spacing), else the date or number at it."""
    import bisect

    ticks = _tick_labels(axis) or {}
    kind = _time_kind(axis)
    locs = sorted(ticks)
    gaps = [b - a for a, b in zip(locs, locs[1:])]
    tol = min(gaps) / 2 if gaps else math.inf
    out = []
    for p in positions:
        i = bisect.bisect_left(locs, p)
        near = min(locs[max(i - 1, 0):i + 1], key=lambda t: abs(t - p), default=None)
        if near is not None and abs(near - p) <= tol:
            out.append(ticks[near])
        elif kind:
            out.append(_time_text(axis, kind, p))
        else:
            out.append(_num_text(p))
    return out


def _name(ax, artist, color):
    """The artist's own label, else the text of the legend entry drawn in the
    same colour: seaborn draws hue levels unlabelled and builds its legend
    from proxy artists."""
    from matplotlib.colors import to_hex

    label = _label(artist)
    legend = ax.get_legend()
    if label or legend is None or color is None:
        return label
    want = to_hex(color)
    handles = getattr(legend, "legend_handles", None) or getattr(legend, "legendHandles", [])
    for h, t in zip(handles, legend.get_texts()):
        try:
            if to_hex(h.get_color() if hasattr(h, "get_color") else h.get_facecolor()) == want:
                return t.get_text()
        except (ValueError, TypeError, AttributeError):
            continue  # a multi-colour or colourless handle
    return ""


def _diagrams(ax, used, caps):
    """Boxes and arrows: text in a box (ax.text with bbox=...) is a node, named by its first
    line; an arrow drawn by ax.annotate from one node to another (textcoords and xycoords the
    two node artists) is an edge, named by the annotation's label (set_label) and drawn solid
    or dashed. Boxes without arrows are a diagram only on axes drawn without axis lines."""
    from matplotlib.text import Annotation

    nodes = [t for t in ax.texts if not isinstance(t, Annotation) and t.get_visible()
             and t.get_bbox_patch() is not None]
    index = {id(t): i for i, t in enumerate(nodes)}
    arrows = [a for a in ax.texts if isinstance(a, Annotation) and a.arrow_patch is not None
              and id(a.xycoords) in index and id(a.anncoords) in index]
    if not arrows and (not nodes or ax.axison):
        return []
    titles = [t.get_text().split("\n", 1)[0] for t in nodes]
    edges = []
    for a in caps(arrows):
        style = a.arrow_patch.get_linestyle()
        edges.append({"from": titles[index[id(a.anncoords)]], "to": titles[index[id(a.xycoords)]],
                      "label": _label(a), "style": "solid" if style in ("-", "solid") else "dashed"})
    used.update(map(id, nodes + arrows))
    return [("diagram", {"label": "", "nodes": caps([{"title": title, "text": t.get_text()}
                                                     for title, t in zip(titles, nodes)]),
                         "edges": edges})]


def _pies(ax, used, caps):
    from matplotlib.patches import Wedge

    pies = {}  # one series per pie (centre, radius): nested donuts are several
    for w in ax.patches:
        if isinstance(w, Wedge):
            pies.setdefault((tuple(w.center), w.r), []).append(w)
    out = []
    for wedges in pies.values():
        used.update(map(id, wedges))
        wedges = caps(wedges)
        out.append(("pie", {
            "label": "",
            "labels": [_label(w) for w in wedges],
            "values": [(w.theta2 - w.theta1) / 360.0 for w in wedges]}))
    return out


def _heatmaps(ax, used, caps):
    import numpy as np
    from matplotlib.collections import QuadMesh

    out = []
    for im in ax.images:
        arr = im.get_array()
        if arr is None or np.ndim(arr) != 2:  # RGB(A) pictures are not heatmaps
            continue
        used.add(id(im))
        nr, nc = arr.shape
        x0, x1, y0, y1 = im.get_extent()
        # origin "upper" (the default) draws row 0 at the extent's top edge
        start, end = (y1, y0) if im.origin == "upper" else (y0, y1)
        rows = [start + (i + 0.5) * (end - start) / nr for i in range(nr)]
        cols = [x0 + (j + 0.5) * (x1 - x0) / nc for j in range(nc)]
        out.append(_heatmap(ax, arr, rows, cols, caps))
    for mesh in ax.collections:
        if not isinstance(mesh, QuadMesh):
            continue
        used.add(id(mesh))
        xy = mesh.get_coordinates()  # (ny + 1, nx + 1, 2) cell corners
        arr = np.ma.asarray(mesh.get_array())
        if arr.size == (xy.shape[0] - 1) * (xy.shape[1] - 1):  # flat shading
            xy = (xy[1:, 1:] + xy[:-1, :-1]) / 2  # cell centres
        arr = arr.reshape(xy.shape[:2])
        out.append(_heatmap(ax, arr, xy[:, 0, 1], xy[0, :, 0], caps))
    return out


def _grid(caps, nrows, ncols):
    """Heatmap rows and columns to keep: at most MAX_POINTS of each and
    MAX_CELLS in all (trailing rows are dropped first)."""
    keep_c = min(ncols, MAX_POINTS)
    keep_r = min(nrows, MAX_POINTS, max(1, MAX_CELLS // max(keep_c, 1)))
    if (keep_r, keep_c) != (nrows, ncols):
        caps.truncated = True
    return keep_r, keep_c


def _heatmap(ax, arr, row_pos, col_pos, caps):
    nrows, ncols = _grid(caps, len(row_pos), len(col_pos))
    return ("heatmap", {
        "label": "",
        "rows": _position_labels(ax.yaxis, row_pos[:nrows]),
        "columns": _position_labels(ax.xaxis, col_pos[:ncols]),
        "values": [_floats(arr[i, :ncols]) for i in range(nrows)]})


def _boxes(ax, used, caps):
    """Box plots, read from their parts: a closed outline per box (a Line2D,
    or a PathPatch with patch_artist=True, which seaborn uses), 2-point lines
    for the median, whiskers and caps, marker-only lines for the fliers."""
    import numpy as np
    from matplotlib.patches import PathPatch

    outlines = [(ln, ln.get_xydata()) for ln in ax.lines
                if len(ln.get_xdata()) in (5, 11)]  # 11 points when notched
    outlines = [(a, xy) for a, xy in outlines if np.allclose(xy[0], xy[-1])]
    outlines += [(p, p.get_path().vertices) for p in ax.patches if isinstance(p, PathPatch)]
    if not outlines:
        return []
    segs = [(ln, ln.get_xydata().tolist()) for ln in ax.lines
            if len(ln.get_xdata()) == 2 and ln.get_linestyle() not in _NO_LINE]
    dots = [(ln, ln.get_xydata().tolist()) for ln in ax.lines
            if ln.get_linestyle() in _NO_LINE or not len(ln.get_xdata())]

    def read(p):  # p: index of the position coordinate, 0 for vertical boxes
        v, found = 1 - p, []
        for art, xy in outlines:
            a0, a1 = xy[:, p].min(), xy[:, p].max()
            q1, q3 = xy[:, v].min(), xy[:, v].max()
            tol = 1e-9 * max(1.0, abs(a0), abs(a1))
            mine = [(ln, s) for ln, s in segs
                    if all(a0 - tol <= pt[p] <= a1 + tol for pt in s)]
            medians = [s[0][v] for _, s in mine if s[0][v] == s[1][v]
                       and s[0][p] != s[1][p] and q1 <= s[0][v] <= q3]
            if not medians:
                continue
            # a whisker cut back to the box edge (no value beyond it within
            # 1.5 IQR) has its cap on that edge: the median is the line inside
            inside = [m for m in medians if q1 < m < q3]
            medians = inside or medians
            lo, hi = q1, q3  # whiskers default to the box edges
            for _, s in mine:
                s_lo, s_hi = sorted((s[0][v], s[1][v]))
                if s[0][p] == s[1][p] and s_lo < s_hi:  # a whisker, from a box edge
                    if math.isclose(s_hi, q1):
                        lo = s_lo
                    elif math.isclose(s_lo, q3):
                        hi = s_hi
            marks = [(ln, s) for ln, s in dots if all(a0 - tol <= pt[p] <= a1 + tol for pt in s)]
            # marker-only lines in the box span are its fliers, or its mean
            outliers = [pt[v] for _, s in marks for pt in s if not lo <= pt[v] <= hi]
            stats = {"min": lo, "q1": q1, "median": medians[0], "q3": q3, "max": hi,
                     "outliers": caps(outliers)}
            parts = [art] + [ln for ln, _ in mine + marks]
            found.append(((a0 + a1) / 2, art, stats, parts))
        return found

    vertical, horizontal = read(0), read(1)
    p, found = (0, vertical) if len(vertical) >= len(horizontal) else (1, horizontal)
    if not found:
        return []
    for *_, parts in found:
        used.update(map(id, parts))
    found = caps(sorted(found, key=lambda b: b[0]))
    names = _position_labels(ax.xaxis if p == 0 else ax.yaxis, [b[0] for b in found])
    boxes = []
    for name, (_, art, stats, _) in zip(names, found):
        # seaborn's hue levels share a category and differ by colour only
        hue = _name(ax, art, art.get_facecolor() if isinstance(art, PathPatch) else art.get_color())
        boxes.append(dict(label="%s / %s" % (name, hue) if hue else name, **stats))
    return [("box", {"label": "", "boxes": boxes})]


def _bars(ax, used, caps):
    """Bar containers, read as histogram bins when the bars tile a numeric
    axis without gaps, else as bars by category."""
    from matplotlib.container import BarContainer

    conts = [c for c in ax.containers if isinstance(c, BarContainer) and len(c)]
    if not conts:
        return []
    kept, spans, horiz = [], [], []  # spans: [(start, end, value)] along the position axis
    for c in conts:
        used.update(map(id, c))
        h = getattr(c, "orientation", None) == "horizontal"
        vals = getattr(c, "datavalues", None)
        rows = []
        for i, r in enumerate(c):
            a, w = (r.get_y(), r.get_height()) if h else (r.get_x(), r.get_width())
            if not (math.isfinite(a) and math.isfinite(w)):
                continue  # seaborn's histplot adds an invisible bar at NaN
            value = vals[i] if vals is not None else (r.get_width() if h else r.get_height())
            rows.append((min(a, a + w), max(a, a + w), value))
        if rows:
            kept.append(c)
            spans.append(rows)
            horiz.append(h)
    if not kept:
        return []
    # seaborn draws confidence intervals (and their caps) as plain 2-point
    # lines inside a bar's span: they belong to the bars, not to a line series
    for ln in ax.lines:
        xy = ln.get_xydata()
        if len(xy) == 2:
            for rows, h in zip(spans, horiz):
                pos = xy[:, 1 if h else 0]
                if any(a <= pos.min() and pos.max() <= b for a, b, _ in rows):
                    used.add(id(ln))
    if len(set(horiz)) == 1 and _tiles(spans, ax.yaxis if horiz[0] else ax.xaxis):
        return _hist_series(ax, kept, spans, caps)
    out = []
    for c, rows, h in zip(kept, spans, horiz):
        rows = caps(rows)
        out.append(("bar", {
            "label": _name(ax, c, c[0].get_facecolor()),
            "categories": _position_labels(ax.yaxis if h else ax.xaxis,
                                           [(a + b) / 2 for a, b, _ in rows]),
            "values": [_float(v) for _, _, v in rows],
            "orientation": "horizontal" if h else "vertical"}))
    return out


def _tiles(spans, axis):
    """True when the distinct bar intervals sit edge to edge on a numeric axis
    (histograms: plt.hist, df.plot.hist, sns.histplot); stacked or overlaid
    datasets repeat the same intervals."""
    if _tick_labels(axis):
        return False
    iv = sorted({(a, b) for rows in spans for a, b, _ in rows})
    if len(iv) < 2:
        return False
    width = min(b - a for a, b in iv)
    tol = max(width, 1e-300) * 1e-6
    return all(abs(b0 - a1) <= tol for (_, b0), (a1, _) in zip(iv, iv[1:]))


def _hist_series(ax, conts, spans, caps):
    spans = [sorted(rows) for rows in spans]
    shared = None
    if len({len(rows) for rows in spans}) == 1:
        # bin i spans the i-th bar of every dataset: side-by-side (dodged)
        # bars split a bin, stacked or overlaid ones repeat it
        slots = list(zip(*spans))
        shared = [min(r[0] for r in slot) for slot in slots] + [max(r[1] for r in slots[-1])]
    out = []
    for c, rows in zip(conts, spans):
        edges = shared or [a for a, _, _ in rows] + [rows[-1][1]]
        # plt.hist labels the first patch, not the container
        label = _label(c) or _name(ax, c[0], c[0].get_facecolor())
        out.append(("hist", {
            "label": label,
            "bin_edges": caps(edges, MAX_POINTS + 1),
            "counts": caps([_float(v) for _, _, v in rows])}))
    return out


def _stairs(ax, used, caps):
    """plt.stairs (often of np.histogram output) draws one StepPatch per call."""
    from matplotlib.patches import StepPatch

    out = []
    for p in ax.patches:
        if isinstance(p, StepPatch):
            used.add(id(p))
            values, edges, _ = p.get_data()
            out.append(("hist", {"label": _label(p),
                                 "bin_edges": caps(_floats(edges), MAX_POINTS + 1),
                                 "counts": caps(_floats(values))}))
    return out


def _data_transform(artist, ax):
    """False for lines placed partly in axes coordinates (axhline, axvline):
    their data is not the plotted data."""
    try:
        return artist.get_transform().contains_branch(ax.transData)
    except Exception:
        return False


def _lines(ax, used, caps):
    out = []
    for ln in ax.lines:
        if id(ln) in used or not ln.get_visible() or not _data_transform(ln, ax):
            continue
        xy = ln.get_xydata()
        if not len(xy):
            continue
        used.add(id(ln))
        label = _name(ax, ln, ln.get_color())
        xy = caps(xy)
        # a marker-only line (plt.plot(x, y, "o")) is drawn as a scatter
        kind = "scatter" if ln.get_linestyle() in _NO_LINE else "line"
        out.append((kind, {"label": label, "x": _axis_values(ax.xaxis, xy[:, 0]),
                           "y": _axis_values(ax.yaxis, xy[:, 1])}))
    return out


def _scatters(ax, used, caps):
    import numpy as np
    from matplotlib.collections import PathCollection
    from matplotlib.transforms import IdentityTransform

    out = []
    for coll in ax.collections:
        # scatter markers are drawn in pixels at data offsets; contour levels
        # are PathCollections too, but in data coordinates without offsets
        if (id(coll) in used or not isinstance(coll, PathCollection)
                or not isinstance(coll.get_transform(), IdentityTransform)):
            continue
        xy = np.ma.filled(np.ma.asarray(coll.get_offsets(), dtype=float), np.nan)
        if not len(xy):
            continue
        used.add(id(coll))
        xy = caps(xy)
        colors = coll.get_facecolor()
        out.append(("scatter", {"label": _name(ax, coll, colors[0] if len(colors) == 1 else None),
                                "x": _axis_values(ax.xaxis, xy[:, 0]),
                                "y": _axis_values(ax.yaxis, xy[:, 1])}))
    return out


def _hexbins(ax, used, caps):
    """Hexagonal bins (ax.hexbin): one hexagon path repeated at data offsets,
    with a count (or reduced value) per hexagon in the colour array."""
    import numpy as np
    from matplotlib.collections import PolyCollection

    out = []
    for coll in ax.collections:
        if id(coll) in used or not isinstance(coll, PolyCollection) or len(coll.get_paths()) != 1:
            continue
        values = coll.get_array()
        xy = np.ma.filled(np.ma.asarray(coll.get_offsets(), dtype=float), np.nan)
        if values is None or len(xy) < 2 or len(values) != len(xy):
            continue  # fill_between and polygons carry no offsets per value
        used.add(id(coll))
        xy, values = caps(xy), caps(np.ma.filled(np.ma.asarray(values, dtype=float), np.nan))
        out.append(("hexbin", {"label": _label(coll),
                               "x": _axis_values(ax.xaxis, xy[:, 0]),
                               "y": _axis_values(ax.yaxis, xy[:, 1]),
                               "counts": _floats(values)}))
    return out


# ---------------------------------------------------------------- plotly


def describe_plotly(fig_dict: dict | Any) -> dict:
    """Describe a plotly figure given as a dict (fig.to_dict() or
    fig.to_plotly_json(); a Figure is accepted too). Traces sharing a pair of axes form one axes entry;
    each pie is its own. Histogram bins are computed here (plotly.js bins in
    the browser), from xbins/nbinsx when given, so they may differ slightly
    from the drawing."""
    caps = _Caps()
    try:
        if hasattr(fig_dict, "to_plotly_json"):  # a Figure object works too
            fig_dict = fig_dict.to_plotly_json()
        layout = fig_dict.get("layout") or {}
        groups = {}
        for i, tr in enumerate(fig_dict.get("data") or []):
            key = ("pie", i) if tr.get("type") == "pie" else (
                tr.get("xaxis") or "x", tr.get("yaxis") or "y")
            groups.setdefault(key, []).append(tr)
        described = [_plotly_axes(key, trs, layout, caps) for key, trs in groups.items()]
        out = _summarize(described, _plotly_text(layout.get("title")), caps)
    except Exception as e:
        out = _result("unknown", "", {}, [], caps)
        out["error"] = _err(e)
    out["truncated"] = caps.truncated
    return _clean(out)


def _plotly_text(title):
    if isinstance(title, dict):
        title = title.get("text")
    return "" if title is None else str(title)


def _is_date_text(text):
    """True for ISO dates: plotly's JSON (what the driver passes) turns
    datetimes into such strings, and they are not categories."""
    import datetime

    try:
        datetime.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _seq(v):
    return [] if v is None else list(v)


def _plotly_axes(key, traces, layout, caps):
    out = {"kind": "unknown", "title": "", "x_label": "", "y_label": "",
           "x_scale": "linear", "y_scale": "linear", "x_tick_labels": [], "series": []}
    try:
        if key[0] == "pie":
            out["title"] = _plotly_text(traces[0].get("title"))
        else:
            for k, name in zip(("x", "y"), key):
                ax = layout.get(k + "axis" + name[1:]) or {}
                out[k + "_label"] = _plotly_text(ax.get("title"))
                out[k + "_scale"] = "log" if ax.get("type") == "log" else "linear"
            xs = [x for tr in traces for x in _seq(tr.get("x"))]
            if xs and all(isinstance(x, str) and not _is_date_text(x) for x in xs):
                out["x_tick_labels"] = caps(list(dict.fromkeys(xs)))
        found = [f for f in (_plotly_trace(tr, caps) for tr in traces) if f]
        if found:
            out["kind"], out["series"] = _combine(found)
        elif not traces:
            out["kind"] = "empty"
    except Exception as e:
        out.update(kind="unknown", series=[], error=_err(e))
    return out


def _plotly_trace(tr, caps):
    """(kind, series) of one trace, or None for unsupported trace types."""
    t = tr.get("type") or "scatter"
    name = str(tr.get("name") or "")
    horiz = tr.get("orientation") == "h"
    x, y = _seq(tr.get("x")), _seq(tr.get("y"))
    if t == "bar":
        cats, vals = (y, x) if horiz else (x, y)
        cats = cats or list(range(len(vals)))
        return "bar", {"label": name, "categories": [str(_plain(c)) for c in caps(cats)],
                       "values": [_float(v) for v in caps(vals)],
                       "orientation": "horizontal" if horiz else "vertical"}
    if t in ("scatter", "scattergl"):
        # plotly.js defaults to lines; px.scatter sets mode="markers"
        kind = "line" if "lines" in (tr.get("mode") or "lines") else "scatter"
        x = x or list(range(len(y)))
        y = y or list(range(len(x)))
        return kind, {"label": name, "x": [_plain(v) for v in caps(x)],
                      "y": [_plain(v) for v in caps(y)]}
    if t == "histogram":
        return _plotly_hist(tr, name, caps)
    if t == "pie":
        return _plotly_pie(tr, name, caps)
    if t == "box":
        return _plotly_box(tr, name, caps)
    if t == "heatmap":
        z = [_seq(row) for row in _seq(tr.get("z"))]
        nrows, ncols = _grid(caps, len(z), max((len(r) for r in z), default=0))
        cols = x or list(range(ncols))
        rows = y or list(range(nrows))
        return "heatmap", {"label": name,
                           "rows": [str(_plain(r)) for r in rows[:nrows]],
                           "columns": [str(_plain(c)) for c in cols[:ncols]],
                           "values": [[_float(v) for v in row[:ncols]] for row in z[:nrows]]}
    return None


def _plotly_hist(tr, name, caps):
    import numpy as np

    # x alone: vertical bins of x; y alone: horizontal bins of y; both: bin
    # the orientation's axis and aggregate the other (px sets histfunc "sum")
    data, other, bins_key = _seq(tr.get("x")), _seq(tr.get("y")), "xbins"
    if tr.get("orientation") == "h" or not data:
        data, other, bins_key = other, data, "ybins"
    func = tr.get("histfunc") or "count"
    if func not in ("count", "sum") or (func == "sum" and len(other) != len(data)):
        raise ValueError("histfunc %r is not supported" % func)
    weights = [(_float(w) or 0.0) for w in other] if func == "sum" and other else None
    if any(isinstance(_plain(v), str) for v in data):  # categorical: bars of counts
        totals = {}
        for v, wt in zip(data, weights or [1.0] * len(data)):
            totals[str(_plain(v))] = totals.get(str(_plain(v)), 0.0) + wt
        cats = caps(list(totals))
        return "bar", {"label": name, "categories": cats,
                       "values": [totals[c] for c in cats], "orientation": "vertical"}
    keep = [i for i, v in enumerate(data) if _float(v) is not None]
    vals = np.array([_float(data[i]) for i in keep])
    w = np.array([weights[i] for i in keep]) if weights else None
    spec = tr.get(bins_key) or {}
    if all(spec.get(k) is not None for k in ("start", "end", "size")):
        start, end, size = (float(spec[k]) for k in ("start", "end", "size"))
        bins = np.arange(start, end + size, size)
    else:
        bins = int(tr.get("nbinsx" if bins_key == "xbins" else "nbinsy") or 0) or "auto"
    counts, edges = np.histogram(vals, bins=bins, weights=w)
    counts = counts.astype(float)
    norm = tr.get("histnorm") or ""
    if norm.startswith("probability") or norm == "percent":
        counts = counts / max(counts.sum(), 1e-300) * (100 if norm == "percent" else 1)
    if norm.endswith("density"):
        counts = counts / np.diff(edges)
    return "hist", {"label": name, "bin_edges": caps(edges.tolist(), MAX_POINTS + 1),
                    "counts": caps(_floats(counts))}


def _plotly_pie(tr, name, caps):
    labels = [str(_plain(v)) for v in _seq(tr.get("labels"))]
    values = [(_float(v) or 0.0) for v in _seq(tr.get("values"))]
    if not values:  # plotly counts label occurrences
        counts = {}
        for lab in labels:
            counts[lab] = counts.get(lab, 0) + 1
        labels, values = list(counts), list(counts.values())
    labels = labels or [str(i) for i in range(len(values))]
    total = sum(values)
    return "pie", {"label": name or _plotly_text(tr.get("title")),
                   "labels": caps(labels),
                   "values": caps([v / total if total else None for v in values])}


def _plotly_box(tr, name, caps):
    import numpy as np

    horiz = tr.get("orientation") == "h" or (tr.get("y") is None and tr.get("x") is not None)
    data, groups = _seq(tr.get("x")), _seq(tr.get("y"))
    if not horiz:
        data, groups = groups, data
    by_group = {}
    for i, v in enumerate(data):
        g = str(_plain(groups[i])) if i < len(groups) else name
        f = _float(v)
        if f is not None:
            by_group.setdefault(g, []).append(f)
    boxes = []
    for g, vals in by_group.items():
        a = np.asarray(vals)
        q1, med, q3 = np.percentile(a, [25, 50, 75])
        # whiskers: furthest points within 1.5 IQR of the box (plotly default)
        inner = a[(a >= q1 - 1.5 * (q3 - q1)) & (a <= q3 + 1.5 * (q3 - q1))]
        boxes.append({"label": g, "min": inner.min(), "q1": q1, "median": med, "q3": q3,
                      "max": inner.max(),
                      "outliers": caps(a[(a < inner.min()) | (a > inner.max())].tolist())})
    return "box", {"label": name, "boxes": caps(boxes)}
