"""analyst kernel driver.

Runs inside the sandbox as the container's first process and speaks JSON lines:
requests on stdin, replies on stdout. It is embedded in the analyst binary and
mounted read-only, so binary and driver never drift.

The first line is the configuration (DEFAULT_CONFIG's keys); then requests
and replies with the fields REQUEST_FIELDS and REPLY_FIELDS name. The Go side
declares the same messages as structs in kernel/protocol.go, where each field
is explained; a Go test checks that the two agree. A "progress" reply says
how far a running cell has got, from records logged to the "analyst.progress"
logger (at most PROGRESS_INTERVAL apart; never a cell output).

The user's code never sees the protocol: stdin is /dev/null to it, and file
descriptors 1 and 2 are pipes whose text becomes stream outputs.
"""

import ast
import base64
import errno
import io
import json
import linecache
import logging
import os
import queue
import signal
import stat
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from types import TracebackType
from typing import Any

DRIVER_PID = os.getpid()
DRIVER_FILE = os.path.abspath(__file__)
sys.path.insert(0, os.path.dirname(DRIVER_FILE))

import analyst_fork  # noqa: E402  (forked sessions; needs the path above)

# Mime types, named as nbformat's Mime* constants in Go (nbformat/mime.go);
# a Go test (kernel/protocol_test.go) checks that the two lists agree.
MIME_PLAIN = "text/plain"
MIME_HTML = "text/html"
MIME_MARKDOWN = "text/markdown"
MIME_LATEX = "text/latex"
MIME_PNG = "image/png"
MIME_JPEG = "image/jpeg"
MIME_SVG = "image/svg+xml"
MIME_JSON = "application/json"
MIME_PLOTLY = "application/vnd.plotly.v1+json"
MIME_CHART = "application/vnd.analyst.chart+json"

# Take the protocol channels before anything else can write to them.
_proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
_proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="replace")
_proto_lock = threading.Lock()
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
os.close(_devnull)


# ---- protocol (kernel/protocol.go is the Go side) -------------------------

REQUEST_FIELDS = {
    "execute": ("id", "code", "output_room"),
    "interrupt": ("reason",),
    "info": ("id",),
    "shutdown": (),
    # Forked sessions (analyst_fork.py); "@N <request>" lines go to session N.
    "fork": ("id", "session", "name", "seed"),
    "fork_kill": ("session",),
}
REPLY_FIELDS = {
    "ready": ("pid", "uid", "python", "rlimits", "preload_ms"),
    "output": ("id", "output"),
    "file": ("id", "path", "offset", "size", "allocated", "data", "eof", "refused"),
    "status": ("id", "status", "reason", "execution_count", "duration_ms", "killed_processes"),
    "info": ("id", "versions"),
    "progress": ("id", "message", "done", "total", "unit"),
    "protocol_error": ("id", "error"),
    # Forked sessions (analyst_fork.py); "@N <reply>" lines come from session N.
    "forked": ("id", "session", "pid", "refusal"),
    "fork_end": ("session", "exit_code", "signal", "oom", "note"),
}


def reply(kind: str, **fields: Any) -> None:
    """Sends a reply of the given type; only the fields REPLY_FIELDS names."""
    unknown = set(fields) - set(REPLY_FIELDS[kind])
    if unknown:
        raise ValueError("reply %s has no field %s" % (kind, ", ".join(sorted(unknown))))
    msg = {"type": kind}
    msg.update(fields)
    send(msg)


def send(msg: dict) -> None:
    # A process forked by user code must never speak for the kernel.
    if os.getpid() != DRIVER_PID:
        return
    line = json.dumps(msg, allow_nan=False, default=_json_default, separators=(",", ":"))
    with _proto_lock:
        _proto_out.write(line + "\n")
        _proto_out.flush()


def _json_default(o):
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
    except Exception:
        pass
    return str(o)


def _finite(o):
    """Replace NaN and infinities (not valid JSON) with None, recursively."""
    if isinstance(o, float):
        return o if o == o and o not in (float("inf"), float("-inf")) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


class OutputLimitExceeded(Exception):
    """Raised into user code that keeps writing far past the output cap."""


class Cell:
    """Collects one cell's outputs in order, under the caps."""

    def __init__(self, cfg):
        self.outputs = []
        self.stream_limit = cfg["stream_limit"]
        self.stop_limit = cfg["stream_stop_limit"]
        self.image_limit = cfg["image_limit"]
        self.html_limit = cfg["html_limit"]
        self.max_displays = cfg["max_displays"]
        self.stream_bytes = 0
        self.dropped = 0
        self.displays = 0
        self.display_ids = {}  # display_id -> its outputs (dicts in self.outputs)
        self.clear_next = False  # clear_output(wait=True): clear before the next output
        self.lock = threading.Lock()

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        with self.lock:
            self._clear_pending()
            n = len(text.encode("utf-8", "replace"))
            room = self.stream_limit - self.stream_bytes
            self.stream_bytes += n
            if room <= 0:
                self.dropped += n
            else:
                if n > room:
                    self.dropped += n - room
                    text = text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
                last = self.outputs[-1] if self.outputs else None
                if last and last["output_type"] == "stream" and last["name"] == name:
                    last["text"] += text
                else:
                    self.outputs.append({"output_type": "stream", "name": name, "text": text})
            over = self.stream_bytes > self.stop_limit
        if over and threading.current_thread() is threading.main_thread():
            raise OutputLimitExceeded(
                "the cell wrote more than %d bytes of output; it was stopped. "
                "Print summaries (head(), describe(), value_counts()) instead of whole data."
                % self.stop_limit
            )

    def display(self, output: dict, display_id: str | None = None, update: bool = False) -> None:
        with self.lock:
            if update:
                # Jupyter updates the outputs shown under the id in place.
                for shown in self.display_ids.get(display_id, ()):
                    shown["data"], shown["metadata"] = output["data"], output["metadata"]
                return
            self._clear_pending()
            if display_id:
                self.display_ids.setdefault(display_id, []).append(output)
            self.displays += 1
            if self.displays > self.max_displays:
                if self.displays == self.max_displays + 1:
                    self.outputs.append(_marker_stream(
                        "[analyst: more than %d rich outputs in one cell; the rest were dropped]"
                        % self.max_displays))
                return
            self.outputs.append(output)

    def clear(self, wait: bool) -> None:
        with self.lock:
            if wait:
                self.clear_next = True
            else:
                self.outputs.clear()

    def _clear_pending(self):
        if self.clear_next:
            self.clear_next = False
            self.outputs.clear()

    def finish(self) -> list:
        if self.dropped:
            self.outputs.append(_marker_stream(
                "[analyst: output truncated: %d more bytes not shown]" % self.dropped))
        return self.outputs


def _marker_stream(text):
    return {"output_type": "stream", "name": "stderr", "text": "\n" + text + "\n"}


_cell = None  # the running Cell, shared with the stream threads


class CaptureStream(io.TextIOBase):
    """sys.stdout / sys.stderr for user code: text goes to the running cell."""

    def __init__(self, name: str, fd: int) -> None:
        self.name_ = name
        self.fd = fd

    @property
    def name(self) -> str:
        return "<%s>" % self.name_

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        # Code that writes to the descriptor (subprocess, C code) lands in the pipe.
        return self.fd

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        cell = _cell
        if cell is not None and os.getpid() == DRIVER_PID:
            cell.stream(self.name_, s)
        return len(s)

    def flush(self) -> None:
        pass


_capture_out = CaptureStream("stdout", 1)
_capture_err = CaptureStream("stderr", 2)


def _drain(fd, name):
    """Copies what is written to descriptor 1 or 2 into the running cell."""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        cell = _cell
        if cell is not None:
            cell.stream(name, data.decode("utf-8", "replace"))


def _redirect_fd(fd, name):
    r, w = os.pipe()
    os.dup2(w, fd)
    os.close(w)
    threading.Thread(target=_drain, args=(r, name), daemon=True).start()


# ---- rich output ----------------------------------------------------------

_pretty = None


def _text_plain(obj):
    global _pretty
    if _pretty is None:
        try:
            from IPython.lib.pretty import pretty as _p  # what Jupyter shows
        except Exception:
            _p = repr
        _pretty = _p
    try:
        return _pretty(obj)
    except Exception:
        return object.__repr__(obj)


def mime_bundle(obj: Any, cell: Cell, include: Iterable[str] | None = None,
                exclude: Iterable[str] | None = None) -> tuple[dict, dict]:
    """The nbformat data and metadata dicts for obj, as Jupyter would show it."""
    mod = type(obj).__module__ or ""
    metadata = {}
    if mod.startswith("pandas"):
        data = {MIME_PLAIN: _text_plain(obj)}
        try:
            import pandas as pd

            if isinstance(obj, pd.Series):
                html = obj.to_frame()._repr_html_()
            else:
                html = obj._repr_html_() if hasattr(obj, "_repr_html_") else None
            if html:
                data[MIME_HTML] = html
        except Exception:
            pass
    elif mod.startswith("plotly") and hasattr(obj, "to_plotly_json"):
        fig = _plotly_dict(obj)
        data = {MIME_PLAIN: _text_plain(obj), MIME_PLOTLY: fig,
                MIME_CHART: _cap_description(_describe_plotly(fig), CHART_LIMIT)}
    else:
        data, metadata = _ipython_format(obj)
    data = {k: v for k, v in data.items()
            if (include is None or k in include) and (exclude is None or k not in exclude)}
    return _cap_bundle(data, metadata, cell)


_formatter = None


def _ipython_format(obj):
    """What IPython's display formatter makes of obj, as in Jupyter: the bundle of
    _repr_mimebundle_ first, then each _repr_*_ method (_repr_html_, _repr_markdown_,
    _repr_svg_, _repr_png_, _repr_jpeg_, _repr_latex_, _repr_json_, ...) for the
    types it left, their metadata, and text/plain by IPython.lib.pretty; nothing when
    _ipython_display_ displayed the object itself. Image bytes become base64, as
    ipykernel's JSON encoder sends them."""
    global _formatter
    if _formatter is None:
        try:
            from IPython.core.formatters import DisplayFormatter

            _formatter = DisplayFormatter()
        except Exception:
            _formatter = False
    if not _formatter:
        return {MIME_PLAIN: _text_plain(obj)}, {}
    data, metadata = _formatter.format(obj)
    for mime, value in data.items():
        if isinstance(value, (bytes, bytearray)):
            data[mime] = base64.b64encode(value).decode("ascii")
    return data, metadata


def _cap_bundle(data, metadata, cell):
    """Drops each representation an object gave over its cap (an image: the image
    cap, decoded; anything else: the HTML cap), saying so in text/plain. A plotly
    figure's JSON and its description (capped itself) are kept."""
    for mime in list(data):
        if mime in (MIME_PLAIN, MIME_PLOTLY, MIME_CHART):
            continue
        value = data[mime]
        size = len(value) if isinstance(value, str) else len(json.dumps(value, default=_json_default))
        limit = cell.html_limit
        if mime in (MIME_PNG, MIME_JPEG):
            size, limit = size * 3 // 4, cell.image_limit
        if size > limit:
            del data[mime]
            metadata.pop(mime, None)
            data[MIME_PLAIN] = data.get(MIME_PLAIN, "") + "\n[analyst: %s view dropped: %d bytes over the %d byte cap]" % (
                mime, size, limit)
    return _finite(data), _finite(metadata)


def _plotly_dict(fig):
    d = fig.to_plotly_json()
    # Round trip through plotly's own encoder: numpy arrays, dates and NaN become JSON.
    try:
        import plotly.io as pio

        return json.loads(pio.to_json(d, validate=False))
    except Exception:
        return json.loads(json.dumps(d, default=_json_default))


def _describe_plotly(fig_dict):
    try:
        import analyst_charts

        return _finite(analyst_charts.describe_plotly(fig_dict))
    except Exception as e:
        return {"kind": "unknown", "error": "chart description failed: %s" % e}


# The most pixels a figure may have to be drawn: its RGBA canvas alone takes
# 4 bytes a pixel (400 MB here), and a 40000x40000 figure (6.4 GB) would
# cost the whole kernel at its memory limit instead of the cell an error.
MAX_FIGURE_PIXELS = 100_000_000


class FigureTooLarge(ValueError):
    pass


def figure_output(fig: Any, cell: Cell) -> dict:
    """A matplotlib figure as Jupyter's inline backend renders it, plus its description."""
    w, h = fig.get_size_inches() * fig.dpi
    if w * h > MAX_FIGURE_PIXELS:
        raise FigureTooLarge("it would be %dx%d pixels, more than the %d million a figure may have; make it smaller with "
                             "figsize or dpi" % (round(w), round(h), MAX_FIGURE_PIXELS // 1_000_000))
    buf = io.BytesIO()
    # Same call as IPython's print_figure (inline backend), so re-running the
    # notebook in Jupyter gives the same bytes; the PNG carries no timestamp.
    fig.canvas.print_figure(buf, format="png", facecolor=fig.get_facecolor(),
                            edgecolor=fig.get_edgecolor(), dpi=fig.dpi, bbox_inches="tight")
    png = buf.getvalue()
    data = {MIME_PLAIN: "<Figure size %gx%g with %d Axes>" % (
        fig.bbox.width, fig.bbox.height, len(fig.axes))}
    metadata = {}
    if len(png) > cell.image_limit:
        data[MIME_PLAIN] += "\n[analyst: image dropped: %d bytes over the %d byte cap]" % (
            len(png), cell.image_limit)
    else:
        data[MIME_PNG] = base64.b64encode(png).decode("ascii")
        w, h = _png_size(png)
        if w:
            metadata[MIME_PNG] = {"width": w, "height": h}
    try:
        import analyst_charts

        desc = _finite(analyst_charts.describe_figure(fig))
    except Exception as e:
        desc = {"kind": "unknown", "error": str(e)}
    data[MIME_CHART] = _cap_description(desc, CHART_LIMIT)
    return {"output_type": "display_data", "data": data, "metadata": metadata}


CHART_LIMIT = 512 << 10


def _cap_description(desc, limit):
    """Keeps a chart description under limit bytes: past it, series keep their
    labels and kinds but lose their data, and the description says so."""
    if len(json.dumps(desc, default=_json_default)) <= limit:
        return desc
    for ax in desc.get("axes", []):
        for i, series in enumerate(ax.get("series", [])):
            ax["series"][i] = {k: v for k, v in series.items() if isinstance(v, str)}
    desc["truncated"] = True
    desc["note"] = "series data dropped: the description was over %d bytes" % limit
    return desc


def _png_size(png):
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return 0, 0
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def flush_figures() -> None:
    """Every open matplotlib figure becomes an output, then is closed."""
    if "matplotlib.pyplot" not in sys.modules or _cell is None:
        return
    plt = sys.modules["matplotlib.pyplot"]
    for num in plt.get_fignums():
        fig = plt.figure(num)
        try:
            _cell.display(figure_output(fig, _cell))
        except Exception as e:
            _cell.display(figure_error(num, fig, e))
        finally:
            plt.close(fig)


def figure_error(num: int, fig: Any, e: BaseException) -> dict:
    """The error output of a figure that could not be drawn: the cell did not
    show what it meant to. It names the exception, also when it has no
    message (a MemoryError at the memory limit often has none)."""
    try:
        size = " (%dx%d pixels)" % (round(fig.bbox.width), round(fig.bbox.height))
    except Exception:
        size = ""
    why = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    if isinstance(e, MemoryError):
        why += " (out of memory while drawing it: make it smaller, with figsize or dpi, or plot fewer points)"
    value = "could not render figure %s%s: %s" % (num, size, why)
    return {"output_type": "error", "ename": "FigureNotRendered", "evalue": value,
            "traceback": ["FigureNotRendered: " + value]}


def display(*objs: Any, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None,
            metadata: dict | None = None, transient: dict | None = None, display_id: str | bool | None = None,
            raw: bool = False, clear: bool = False, update: bool = False, **kwargs: Any) -> Any:
    """Shows objects as rich outputs, as IPython's display() does in Jupyter; it
    stands in for it (IPython.display.display, display_html(), ...). With
    raw=True each object is a MIME bundle already: {"mime/type": data, ...}.
    metadata, given, is merged over the objects' own."""
    if clear:
        clear_output(wait=True)
    if display_id is True:
        display_id = os.urandom(16).hex()
    for obj in objs:
        if _cell is None:
            continue
        if raw:
            if not isinstance(obj, dict):
                raise TypeError("display(raw=True) takes mime bundles (dicts), not %s" % type(obj).__name__)
            data, md = _finite(obj), {}
        elif type(obj).__module__.startswith("matplotlib") and hasattr(obj, "canvas"):
            _cell.display(figure_output(obj, _cell))
            continue
        else:
            data, md = mime_bundle(obj, _cell, include, exclude)
            if not data:
                continue  # it displayed itself (_ipython_display_)
        if metadata:
            md = _merge(md, _finite(metadata))
        _cell.display({"output_type": "display_data", "data": data, "metadata": md}, display_id, update)
    if display_id and not update:
        return _display_handle(display_id)


def _merge(d1, d2):
    """IPython's metadata merge: d2's values win, nested dicts merged."""
    if not isinstance(d1, dict) or not isinstance(d2, dict):
        return d2
    for key, value in d2.items():
        d1[key] = _merge(d1.get(key), value)
    return d1


def publish_display_data(data: dict, metadata: dict | None = None, source: str | None = None, *,
                         transient: dict | None = None, **kwargs: Any) -> None:
    """Shows a MIME bundle as it is (IPython's publish_display_data)."""
    display(data, raw=True, metadata=metadata,
            display_id=(transient or {}).get("display_id"), update=kwargs.get("update", False))


def update_display(obj: Any, *, display_id: str, **kwargs: Any) -> None:
    """Replaces what the running cell displayed under display_id (IPython's
    update_display); an output of an earlier cell is not changed."""
    kwargs["update"] = True
    display(obj, display_id=display_id, **kwargs)


def clear_output(wait: bool = False) -> None:
    """Clears the running cell's outputs, at once or (wait) just before the next
    one, as Jupyter does."""
    if _cell is not None:
        _cell.clear(wait)


def _display_handle(display_id):
    try:
        from IPython.core.display_functions import DisplayHandle
    except Exception:
        return None
    return DisplayHandle(display_id)


def _patch_ipython_display(display_functions):
    """Outside an IPython shell, IPython's display() prints the object's repr
    (<IPython.core.display.HTML object>): the kernel's functions stand in for
    IPython's, so IPython.display's names bind to them when it is imported."""
    display_functions.display = display
    display_functions.publish_display_data = publish_display_data
    display_functions.update_display = update_display
    display_functions.clear_output = clear_output


def _show(*args, **kwargs):
    flush_figures()


def _patch_plotly(basedatatypes):
    def show(fig, *args, **kwargs):
        display(fig)

    basedatatypes.BaseFigure.show = show


class _PatchOnImport:
    """Patches a module as soon as it is imported: patch(module) runs right after its
    code, before anything can bind its names (plotly's fig.show() routed to display(),
    IPython's display functions replaced)."""

    def __init__(self, name, patch):
        self.name, self.patch = name, patch

    def install(self):
        if self.name in sys.modules:
            self.patch(sys.modules[self.name])
            return
        sys.meta_path.insert(0, self)

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        orig = loader.exec_module

        def exec_module(module):
            orig(module)
            self.patch(module)

        loader.exec_module = exec_module
        return spec


# ---- files written to /output ---------------------------------------------

# /output is a size-capped tmpfs; what the code writes there reaches the
# host only because the driver sends it, after each cell, and the Go side
# checks every name and byte (the code shares this process, so nothing here
# is trusted by it). A file is sent only if its size when opened fits in the
# room left of the output budget (its apparent size: a sparse 1 TiB file
# would be written out whole on the host, so it is refused from its size),
# and never past that size, however it grows meanwhile. An interrupt stops
# the copying.
FILE_CHUNK = 4 << 20
_output_seen = {}  # relative name -> (size, mtime_ns, ctime_ns, inode) when last sent
_output_sent = {}  # relative name -> bytes last sent for it (room it frees when replaced)
# Set by an interrupt for the running request, cleared when the reader
# reads the next execute request (an interrupt always follows the request
# it is for on stdin, so a late one for an earlier cell is never kept).
# The cell is stopped by it wherever it is: running, about to run, or being
# copied out.
_interrupted = threading.Event()


class CopyStopped(Exception):
    """An interrupt came while the cell's files were copied out."""


def _output_full(root):
    try:
        st = os.statvfs(root)
    except OSError:
        return False
    return st.f_bavail == 0 or st.f_favail == 0


def _output_full_note(cfg):
    return ("output folder full (limit %s): /output holds at most %s; "
            "write smaller files, or raise kernel.output-size" % (cfg["output_limit"], cfg["output_limit"]))


def _refuse_file(req_id, rel, why, size=0, allocated=0):
    """Tells analyst that /output/rel is not sent, and why."""
    reply("file", id=req_id, path=rel, offset=0, size=size, allocated=allocated, data="", eof=True,
          refused=why)


def _send_file(req_id, dir_fd, name, rel, seen, room):
    """Sends /output/rel (name in the folder open as dir_fd, the file lstat
    saw as seen) if it fits in room bytes; returns the room it took."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
    except OSError as e:
        _refuse_file(req_id, rel, "it could not be read: %s" % (e.strerror or e))
        return 0
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_ino != seen.st_ino:
            return 0  # replaced since it was listed: the next cell sees it
        size, allocated = st.st_size, st.st_blocks * 512
        frees = _output_sent.get(rel, 0)  # analyst keeps that copy until this one is whole
        if size > room + frees:
            _refuse_file(req_id, rel, "its size, %d bytes, is more than the %d bytes left of the output budget"
                         % (size, room + frees), size, allocated)
            return 0
        offset = 0
        while True:
            if _interrupted.is_set():
                reply("file", id=req_id, path=rel, offset=offset, size=size, allocated=allocated, data="",
                      eof=True, refused="the cell was interrupted while its files were copied out; "
                      "this file and any after it were not copied out (they are after the next cell)")
                raise CopyStopped()
            chunk = f.read(min(FILE_CHUNK, size - offset))
            eof = not chunk or offset + len(chunk) >= size
            reply("file", id=req_id, path=rel, offset=offset, size=size, allocated=allocated,
                  data=base64.b64encode(chunk).decode("ascii"), eof=eof)
            offset += len(chunk)
            if eof:
                break
    _output_sent[rel] = offset
    return offset - frees


def _output_files(req_id, root_fd, skipped):
    """Yields (folder descriptor, name, rel, lstat) for the regular files
    under the folder open as root_fd, walked by descriptor (os.fwalk: no
    link followed, each folder checked to be the one listed, so code that
    swaps a folder for a link meanwhile gets nothing else copied out); a
    folder that cannot be read is reported as not copied out, and names that
    are no files or not UTF-8 go to skipped."""
    def unreadable(e):
        rel = os.path.normpath(e.filename) if e.filename else "."
        _refuse_file(req_id, rel, "it is a folder that could not be read (%s): the files in it were not "
                     "copied out" % (e.strerror or e))

    sessions = analyst_fork.output_areas()  # each session copies out its own
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(".", dir_fd=root_fd, onerror=unreadable):
        if dirpath == "." and sessions:
            dirnames[:] = [d for d in dirnames if d not in sessions]
        for name in filenames:
            rel = os.path.normpath(os.path.join(dirpath, name))
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except OSError as e:
                _refuse_file(req_id, rel, "it could not be read: %s" % (e.strerror or e))
                continue
            if not stat.S_ISREG(st.st_mode):
                skipped.append(rel)
                continue
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                skipped.append(rel.encode("utf-8", "replace").decode("utf-8"))
                continue
            yield dir_fd, name, rel, st


def _output_root(cfg, cell):
    """The output folder, open: a forked session's is the folder it was
    given (its cell says so if its path now leads elsewhere); the kernel's,
    /output opened following no link. None if there is none."""
    area = analyst_fork.output_area()
    if area is not None:
        fd, same = area
        if not same:
            cell.outputs.append(_marker_stream(
                "[analyst: %s is no longer this session's output folder (it was moved or replaced, by code of "
                "this or another session): the files copied out are those in the folder the session was given]"
                % cfg["output_dir"]))
        return os.dup(fd)
    root = cfg.get("output_dir")
    if not root:
        return None
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None


def copy_out(req_id: str | None, cfg: dict, cell: Cell, room: int) -> None:
    """Sends every regular file under /output that is new or changed since
    the last cell, within room bytes; symbolic links, devices and fifos are
    not files to copy. Raises CopyStopped on an interrupt."""
    root_fd = _output_root(cfg, cell)
    if root_fd is None:
        return
    current = {}
    skipped = []
    try:
        for dir_fd, name, rel, st in _output_files(req_id, root_fd, skipped):
            if len(current) >= cfg["output_max_files"]:
                _refuse_file(req_id, rel, "more than %d files in /output: this file and any after it were not "
                             "copied out" % cfg["output_max_files"])
                break
            key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            current[rel] = key
            if _output_seen.get(rel) != key:
                try:
                    room -= _send_file(req_id, dir_fd, name, rel, st, room)
                except CopyStopped:
                    del current[rel]  # not copied: it is new to the next cell
                    raise
    finally:
        os.close(root_fd)
        _output_seen.clear()
        _output_seen.update(current)
    if skipped:
        cell.outputs.append(_marker_stream(
            "[analyst: not copied out of /output (only regular files with UTF-8 names are): %s]"
            % ", ".join(sorted(skipped)[:20])))


# ---- running cells --------------------------------------------------------

_running = False
_interrupt_reason = None
_request_id = None  # the id of the running cell's request
_user_ns = {"__name__": "__main__", "__builtins__": __builtins__, "display": display}
_execution_count = 0


def _on_sigint(signum, frame):
    # Only an interrupt analyst asked for over the protocol (the reader sets
    # _interrupted before it signals): a SIGINT from a session's code, which
    # runs as the same user, does not stop this process's cell.
    if _running and _interrupted.is_set():
        raise KeyboardInterrupt


def _cell_filename(n):
    return "<cell-%d>" % n


def _traceback_lines(etype, value, tb):
    # Drop the driver's own frames: the traceback starts in the user's cell.
    while tb is not None and tb.tb_frame.f_code.co_filename == DRIVER_FILE:
        tb = tb.tb_next
    return traceback.format_exception(etype, value, tb)


def error_output(etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> dict:
    lines = _traceback_lines(etype, value, tb)
    text = "".join(lines).rstrip("\n")
    evalue = str(value)
    cfg = _config
    if (isinstance(value, OSError) and value.errno == errno.ENOSPC and cfg.get("output_dir")
            and _output_full(cfg["output_dir"])):
        # "No space left on device" alone does not say which limit was hit.
        note = _output_full_note(cfg)
        evalue += " (" + note + ")"
        text += "\n" + note
    return {
        "output_type": "error",
        "ename": etype.__name__,
        "evalue": evalue,
        "traceback": text.split("\n"),
    }


def run_cell(code: str) -> tuple[str, int]:
    """Runs code in the user namespace; returns the status."""
    global _execution_count, _running
    _execution_count += 1
    n = _execution_count
    filename = _cell_filename(n)
    lines = code.splitlines(keepends=True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    try:
        tree = ast.parse(code, filename=filename, mode="exec")
    except (SyntaxError, ValueError, OverflowError):
        etype, value, _ = sys.exc_info()
        _cell.display(error_output(etype, value, None))
        return "error", n
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    status = "ok"
    _running = True
    try:
        if _interrupted.is_set():
            raise KeyboardInterrupt  # it came before the cell began
        if tree.body:
            exec(compile(tree, filename, "exec"), _user_ns)
        if last is not None:
            value = eval(compile(last, filename, "eval"), _user_ns)
            if value is not None:
                _user_ns["_"] = value
                data, metadata = mime_bundle(value, _cell)
                if data:
                    _cell.display({"output_type": "execute_result", "execution_count": n,
                                   "data": data, "metadata": metadata})
    except KeyboardInterrupt:
        _running = False
        if os.getpid() != DRIVER_PID:
            os._exit(0)
        status = "interrupted"
        etype, value, tb = sys.exc_info()
        _cell.display(error_output(etype, value, tb))
    except BaseException:
        _running = False
        if os.getpid() != DRIVER_PID:
            os._exit(1)
        etype, value, tb = sys.exc_info()
        if etype is SystemExit:
            value = SystemExit("the code called exit(); the kernel keeps running")
        status = "error"
        _cell.display(error_output(etype, value, tb))
    finally:
        _running = False
        if os.getpid() != DRIVER_PID:
            # A child forked by user code that fell back into the driver.
            os._exit(0)
    try:
        flush_figures()
    except KeyboardInterrupt:
        status = "interrupted"
    return status, n


def _reap_strays():
    """Kills processes the cell left behind and reaps zombies (we are PID 1).

    kill(-1) reaches every process in the container but us; a fork bomb may
    still be forking while it runs, so repeat until nothing is left. With
    forked sessions (a session's own cells, or a parent that has some) only
    the cell's processes go: see analyst_fork.reap_strays.
    """
    forked = analyst_fork.reap_strays()
    if forked is not None:
        return forked
    if os.getpid() != 1:
        return 0
    killed = set()
    for _ in range(200):
        _reap_zombies()
        others = [p for p in os.listdir("/proc") if p.isdigit() and p != "1"]
        if not others:
            break
        killed.update(others)
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        time.sleep(0.005)
    _reap_zombies()
    return len(killed)


def _reap_zombies():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


PROGRESS_LOGGER = "analyst.progress"
PROGRESS_INTERVAL = 0.5  # seconds between progress messages; the last of a task (done == total) always goes


class ProgressHandler(logging.Handler):
    """Sends the records of the progress logger to analyst as progress messages of the running
    cell. Generated code logs there at info level; in Jupyter the logger has no handler and the
    records go nowhere, so progress never becomes a cell output."""

    def __init__(self):
        super().__init__()
        self.last = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        done, total = getattr(record, "done", None), getattr(record, "total", None)
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL and (done is None or done != total):
            return
        self.last = now
        try:
            message = record.getMessage()
        except Exception:
            return
        reply("progress", id=_request_id, message=message[:300],
              done=done if isinstance(done, int) else None,
              total=total if isinstance(total, int) else None,
              unit=str(getattr(record, "unit", "") or "")[:20])


def install_progress_handler() -> None:
    log = logging.getLogger(PROGRESS_LOGGER)
    log.setLevel(logging.INFO)
    log.propagate = False  # never into handlers a cell may give the root logger
    log.addHandler(ProgressHandler())


def execute(req: dict, cfg: dict) -> None:
    global _cell, _request_id
    _request_id = req.get("id")
    cell = Cell(cfg)
    _cell = cell
    # Earlier cells may have replaced or closed these (exit() closes stdin).
    sys.stdout, sys.stderr = _capture_out, _capture_err
    if sys.stdin is None or sys.stdin.closed:
        sys.stdin = open(os.devnull)
    start = time.monotonic()
    try:
        status, n = run_cell(req.get("code", ""))
    except KeyboardInterrupt:
        status, n = "interrupted", _execution_count
    except OutputLimitExceeded as e:
        cell.outputs.append(_marker_stream(str(e)))
        status, n = "error", _execution_count
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    time.sleep(0)  # let the pipe readers catch up with fd-level writes
    strays = _reap_strays()
    _cell = None
    root = cfg.get("output_dir")
    if root and _output_full(root) and not any(
            o.get("output_type") == "error" and "output folder full" in o.get("evalue", "")
            for o in cell.outputs):
        # Also when a child process hit the cap, or the error was caught.
        cell.outputs.append(_marker_stream("[analyst: " + _output_full_note(cfg) + "]"))
    try:
        copy_out(req.get("id"), cfg, cell, req.get("output_room") or 0)
    except CopyStopped:
        status = "interrupted"
    analyst_fork.note_outside_area(cell)
    duration = time.monotonic() - start
    for out in cell.finish():
        reply("output", id=req.get("id"), output=out)
    end = {"status": status, "execution_count": n, "duration_ms": round(duration * 1000, 3)}
    if status == "interrupted" and _interrupt_reason:
        end["reason"] = _interrupt_reason
    if strays:
        end["killed_processes"] = strays
    reply("status", id=req.get("id"), **end)


def package_versions() -> dict[str, str | None]:
    from importlib import metadata

    names = ["pandas", "numpy", "scipy", "matplotlib", "seaborn", "plotly", "statsmodels",
             "scikit-learn", "openpyxl", "ipython", "ipykernel", "nbformat", "nbconvert"]
    out = {"python": sys.version.split()[0]}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except Exception:
            out[name] = None
    return out


def apply_rlimits(limits: dict[str, int] | None) -> dict[str, int | str]:
    import resource

    applied = {}
    names = {"as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC,
             "nofile": resource.RLIMIT_NOFILE, "fsize": resource.RLIMIT_FSIZE}
    for key, value in (limits or {}).items():
        res = names.get(key)
        if res is None or not value:
            continue
        try:
            resource.setrlimit(res, (value, value))
            applied[key] = value
        except (ValueError, OSError) as e:
            applied[key] = "failed: %s" % e
    return applied


def _reader(q):
    global _interrupt_reason
    for line in _proto_in:
        line = line.strip()
        if not line:
            continue
        if line.startswith("@"):
            analyst_fork.route(line)  # for a forked session
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            reply("protocol_error", error="not JSON: %r" % line[:200])
            continue
        if msg.get("type") == "fork_kill":
            analyst_fork.kill(msg.get("session"))
            continue
        if msg.get("type") == "interrupt":
            # Whatever the cell is doing: running code, or its files being
            # copied out (which stops at the next chunk).
            _interrupt_reason = msg.get("reason") or "interrupt"
            _interrupted.set()
            if _running:
                os.kill(DRIVER_PID, signal.SIGINT)
            continue
        if msg.get("type") == "execute":
            _interrupted.clear()
            _interrupt_reason = None
        q.put(msg)
    q.put({"type": "shutdown"})


DEFAULT_CONFIG = {
    "stream_limit": 1 << 20,
    "stream_stop_limit": 64 << 20,
    "image_limit": 8 << 20,
    "html_limit": 1 << 20,
    "max_displays": 50,
    "rlimits": {},
    "preload": True,
    "output_dir": None,
    "output_limit": "",
    "output_max_files": 10000,
    "session_memory": 0,
}
_config = DEFAULT_CONFIG


# Text in charts falls back glyph by glyph through these families
# (Matplotlib 3.6+; only through families named in font.family: a generic
# "sans-serif" there stands for one font, without fallback): DejaVu Sans for Latin, Greek and Cyrillic, Noto Sans
# CJK for Chinese, Japanese and Korean, Symbola for emoji. Noto Color Emoji
# is not among them: its glyphs are colour bitmaps of one fixed size, which
# Agg cannot scale ("Could not set the fontsize"); the report's HTML uses it.
FALLBACK_FONTS = ["DejaVu Sans", "Noto Sans CJK JP", "Symbola"]


def _seed_matplotlib_cache():
    """Copies the font cache built into the image, so import does not rebuild it,
    and writes a matplotlibrc naming the fallback fonts the image has."""
    src = "/usr/local/share/analyst/matplotlib"
    dst = os.environ.get("MPLCONFIGDIR")
    if not dst or os.path.exists(dst):
        return
    import shutil

    try:
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            os.makedirs(dst)
        families = _installed_families(dst)
        # In MPLCONFIGDIR, so Jupyter re-running a notebook from a cell
        # (which inherits the variable) draws with the same fonts.
        with open(os.path.join(dst, "matplotlibrc"), "w") as f:
            f.write(matplotlibrc(families))
    except OSError:
        pass


def _installed_families(cache_dir):
    """Font family names in Matplotlib's font cache; None when there is none."""
    import glob

    for path in glob.glob(os.path.join(cache_dir, "fontlist-*.json")):
        try:
            with open(path) as f:
                return {font.get("name") for font in json.load(f).get("ttflist", [])}
        except (OSError, ValueError, AttributeError):
            return None
    return None


def matplotlibrc(families: Iterable[str]) -> str:
    """The kernel's Matplotlib configuration: the fallback fonts among families
    (a family Matplotlib cannot find would be logged into the cell's output)."""
    names = [n for n in FALLBACK_FONTS if n in (families or ())]
    if not names:
        return ""
    return "font.family: %s\n" % ", ".join(names)


def main() -> None:
    global _config
    cfg = dict(DEFAULT_CONFIG)
    first = _proto_in.readline()
    if first.strip():
        msg = json.loads(first)
        cfg.update({k: v for k, v in msg.items() if k in DEFAULT_CONFIG})
    _config = cfg

    signal.signal(signal.SIGINT, _on_sigint)
    os.register_at_fork(after_in_child=lambda: None)  # children are detected by pid
    _redirect_fd(1, "stdout")
    _redirect_fd(2, "stderr")
    sys.stdout, sys.stderr = _capture_out, _capture_err
    sys.stdin = open(os.devnull)
    _PatchOnImport("plotly.basedatatypes", _patch_plotly).install()
    _PatchOnImport("IPython.core.display_functions", _patch_ipython_display).install()

    started = time.monotonic()
    _seed_matplotlib_cache()
    if cfg["preload"]:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.show = _show
        _user_ns.update({"np": numpy, "pd": pandas, "plt": plt})
    install_progress_handler()
    applied = apply_rlimits(cfg.get("rlimits"))

    q = queue.Queue()
    threading.Thread(target=_reader, args=(q,), daemon=True).start()
    analyst_fork.attach(sys.modules[__name__])
    reply("ready", pid=os.getpid(), uid=os.getuid(), python=sys.version.split()[0], rlimits=applied,
          preload_ms=round((time.monotonic() - started) * 1000, 3))
    serve(q, cfg)


def serve(q: queue.Queue, cfg: dict) -> None:
    """Answers requests until shutdown: the kernel's, or a forked session's."""
    while True:
        if q.empty():
            analyst_fork.idle(cfg, q)  # a spare copy for the next fork request
        msg = q.get()
        kind = msg.get("type")
        if kind == "shutdown":
            break
        if msg is analyst_fork.WAKE:
            continue
        if kind == "execute":
            analyst_fork.invalidate()  # a spare copy would miss this cell
            execute(msg, cfg)
        elif kind == "info":
            reply("info", id=msg.get("id"), versions=package_versions())
        elif kind == "fork":
            analyst_fork.fork(msg, cfg)
        else:
            reply("protocol_error", id=msg.get("id"), error="unknown request type %r" % kind)


if __name__ == "__main__":
    main()
