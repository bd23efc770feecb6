"""analyst kernel driver: forked sessions (kernel/fork.go is the Go side).

After the shared stages (setup, load, profile) a "fork" request makes the
driver fork a child: a copy-on-write copy of the kernel that serves a request
stream of its own, with its own output area, scratch folder and random seed.
The driver (the container's first process) stays the parent and relays:

    Go -> parent   "@N <request>"  the parent writes <request> to session N's pipe
    parent -> Go   "@N <reply>"    a line session N wrote, framed by the parent

so every session speaks the driver's ordinary protocol over a pair of pipes,
and a session can never speak for another: the parent frames each line it
reads from a session's pipe with that session's number. Pipes, not sockets,
so the seccomp profile's socket families do not matter here. Once asked to
fork, the parent keeps a spare copy forked while it is idle, which the next
request claims (see fork()).

What crosses the fork (README, "Forked sessions"):
- memory: everything the parent held at the fork, copied on write; nothing
  either side does afterwards reaches the other. The parent's objects are
  frozen out of the child's garbage collector (gc.freeze), so collecting
  does not copy their pages.
- threads: only the forking thread exists in a child. The fork happens in
  the parent's main loop, between cells, holding the protocol lock, and is
  refused while threads the cells started are alive (their locks would be
  copied without the threads that hold them), Python's or native ones. The
  child makes its own reader and output threads. The image's BLAS is
  Debian's reference BLAS, single-threaded; OpenMP (libgomp, which
  scikit-learn uses) keeps a pool of worker threads, which a child would
  inherit as a pool without threads (its next parallel region would wait for
  them forever): before a fork the parent releases the pool
  (omp_pause_resource_all), and both sides start theirs anew when next
  needed.
- open files: a child gets descriptions of its own for the parent's regular
  files, folders and devices (reopened at the same position), so reading in
  one session never moves another's position; pipes and sockets lead to the
  parent's processes and become /dev/null in the child.
- the filesystem is the container's, shared: a child writes its files to
  /output/NAME (copied out to its own folder, from the folder it was given,
  by descriptor; a file it writes directly in /output is not copied, and its
  cell says so) and gets a folder of its own, /tmp/analyst-session-TOKEN
  (TOKEN random, made before the child is claimed), as its working folder,
  TMPDIR, HOME and MPLCONFIGDIR. When it ends, every process it started is
  killed (it is a child subreaper: a process that leaves its session id is
  still its descendant), and its folders and whatever appeared directly in
  /tmp and /dev/shm since the fork point are removed.
- memory: a child's address space is capped (hard RLIMIT_AS, which it cannot
  raise) at what it had when claimed plus the container's memory less twice
  the kernel's resident set (a child may copy every page it shares), so a
  runaway child gets a MemoryError before the container's limit kills
  anyone.
- random seeds: `random` and numpy's global generator are seeded with the
  session's seed (the Go side derives it from the name), so what a child
  draws does not depend on when it was forked.
- matplotlib: no figure is open in a child (the parent closes its figures at
  the end of every cell); rcParams and styles are the parent's.
"""

import gc
import json
import os
import queue
import random
import re
import resource
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import types
import warnings

driver = None  # the driver module (__main__), set by attach()

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")  # kernel/fork.go checks the same
MAX_LINE = (64 << 20) - 64  # the Go side's maxLine, less the frame
OOM_SCORE_ADJ = 500  # a child is killed at the memory limit before its parent
POLL = 0.25  # seconds between checks that a session's process still lives
PRIVATE_PREFIX = "/tmp/analyst-session-"  # + a random token: a session's own folder
SCRATCH = ("/tmp", "/dev/shm")  # shared places whose new entries a session's end removes
MIN_SESSION_MEMORY = 256 << 20  # the least a session may grow by, whatever the kernel holds

_lock = threading.Lock()  # guards _sessions
_sessions = {}  # number -> Session, in the parent
_session_pids = set()  # every session ever forked: processes of these sessions are ours to reap
_live = {}  # pid -> own folder of each copy (spare or claimed) whose relay has not seen it end
_cancelled = set()  # numbers killed before their fork: never to be forked
_own_threads = set()  # the driver's threads: every other live thread blocks a fork
_child = None  # in a child: its Session
_inherited = []  # the parent's protocol files in a child: kept, never closed by the collector
_oom_kills = [None]  # the container's OOM-kill count when last read
_outside_seen = {}  # in a child: the files directly in /output when it last looked
_scratch_base = {}  # SCRATCH folder -> the names in it at the fork point (no session live)
_area_fd = [None, None]  # in a child: its output area, open, and its (st_dev, st_ino)


class Session:
    """A forked session as the parent sees it."""

    def __init__(self, number: int, name: str) -> None:
        self.number = number
        self.name = name
        self.pid = 0
        self.private = ""  # its own folder, PRIVATE_PREFIX + a random token
        self.requests = queue.Queue()
        self.req_w = -1
        self.rep_r = -1


def attach(module: types.ModuleType) -> None:
    """Called by the driver once its threads run: they are the driver's own."""
    global driver
    driver = module
    _guard_process()
    _own_threads.update(threading.enumerate())
    _oom_kills[0] = oom_kill_count()


def in_child() -> bool:
    return _child is not None


def output_areas() -> set[str]:
    """Folder names under /output that belong to live sessions (the parent's
    copy-out skips them: each session copies out its own)."""
    with _lock:
        return {s.name for s in _sessions.values()}


# ---- the processes' memory --------------------------------------------------

# Every process here runs as the same user, and the kernel cannot change
# that (no capabilities). What keeps a session's code out of the kernel's and
# its siblings' memory and descriptors (/proc/PID/mem, /proc/PID/fd,
# pidfd_getfd: the kernel's protocol pipe among them) is that the kernel's
# process is not dumpable, and its forks inherit that: the kernel then allows
# those only to a process with CAP_SYS_PTRACE. (A program a session starts is
# dumpable again after its exec; it holds nothing of another's.)
# Not dumpable, a process's /proc files belong to root, so it can no longer
# open its own oom_score_adj: the kernel opens it first and keeps it open, and
# raises its own score around each fork for the child to inherit.
PR_SET_DUMPABLE = 4
_oom_adj_fd = [None]  # the kernel's /proc/self/oom_score_adj, open for writing


def _guard_process():
    try:
        _oom_adj_fd[0] = os.open("/proc/self/oom_score_adj", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        pass
    _set_dumpable(False)


def _set_dumpable(on):
    _prctl(PR_SET_DUMPABLE, int(on))


def _prctl(option, value):
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(%d)" % option)


def _oom_adj(value=None):
    """The kernel's oom_score_adj; with value, sets it first. None where the
    file could not be opened."""
    fd = _oom_adj_fd[0]
    if fd is None:
        return None
    try:
        if value is not None:
            os.pwrite(fd, str(value).encode(), 0)
        return int(os.pread(fd, 16, 0).strip() or 0)
    except (OSError, ValueError):
        return None


# ---- the parent: forking ----------------------------------------------------

# Forking costs tens of milliseconds of CPU here (copying the page tables,
# then every page the new process first writes, Python's own bookkeeping
# included). Once a kernel has been asked to fork, it forks a spare copy
# whenever it is idle, set up but for its name: a fork request claims it,
# and only a request that finds none forks on the spot. Running a cell
# makes the spare stale, so it is killed first (invalidate).
_wanted = False  # the kernel has been asked to fork: keep a spare
_spare = None  # the spare copy: a Session without a number yet
# Claimed sessions whose ready line has not been relayed yet. The next spare
# waits for them: CPython holds the GIL through os.fork(), which would hold
# up the relay thread that frames their ready line (tens of milliseconds for
# a kernel holding a large frame). When the last one is ready, its relay
# wakes the main loop (WAKE) to fork the spare.
_unready = set()
_main_queue = [None]  # the driver's request queue, for WAKE
WAKE = {"type": "wake"}  # not a request: the driver's loop only looks again


def fork(req: dict, cfg: dict) -> None:
    """Forks a session for a "fork" request; runs in the parent's main loop,
    so no cell is running. Replies "forked" (or refuses); the child's own
    first line is "ready"."""
    global _wanted, _spare
    started = time.monotonic()
    _wanted = True
    number, name = req.get("session"), req.get("name")
    # A spare was forked with no threads but the driver's, and no cell ran since.
    why = _refusal(number, name, cfg, threads=_spare is None)
    if why:
        driver.reply("forked", id=req.get("id"), session=number, pid=0, refusal=why)
        return
    claim = {"session": number, "name": name, "seed": req.get("seed"), "started": started}
    s, _spare = _spare, None
    if s is not None and _held(s.pid):
        _signal(s.pid, signal.SIGKILL)  # its relay reaps it; a fresh copy replaces it
        s = None
    _remove_leftover_areas(cfg, name)
    try:
        if s is None or not _claim(s, claim):  # no spare, or it died
            s = _fork_copy()
            _claim(s, claim)
    except (OSError, RuntimeError) as e:  # at the process limit ("can't start new thread")
        driver.reply("forked", id=req.get("id"), session=number, pid=0, refusal="the kernel could not fork: %s" % e)
        return
    driver.reply("forked", id=req.get("id"), session=number, pid=s.pid, refusal="")


def _held(pid):
    """Whether process pid is stopped or traced (a session can SIGSTOP the
    spare: it would never answer its claim)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return False
    state = fields.get("State", "").split()
    return bool(state) and state[0] in ("T", "t") or fields.get("TracerPid", "0").strip() != "0"


def _claim(s, claim):
    """Tells copy s its name and makes it a session; False if it has died
    (its relay cleans up after it). Under the lock its relay ends it with,
    so a copy that dies meanwhile is either a session or not one."""
    with _lock:
        try:
            os.write(s.req_w, (json.dumps(claim) + "\n").encode())
        except OSError:
            return False
        s.number, s.name = claim["session"], claim["name"]
        _sessions[s.number] = s
        _unready.add(s)
    return True


def _relayed_first_line(s):
    """Session s is ready (or has failed): a spare may be forked again."""
    with _lock:
        was = s in _unready
        _unready.discard(s)
        wake = was and not _unready
    if wake and _main_queue[0] is not None:
        _main_queue[0].put(WAKE)


def idle(cfg: dict, q: queue.Queue) -> None:
    """The main loop has nothing to do: fork a spare copy for the next fork
    request, if there have been fork requests and no claimed session is
    still getting ready (see _unready)."""
    global _spare
    _main_queue[0] = q
    with _lock:
        waiting = bool(_unready)
    if _wanted and not waiting and _spare is None and _child is None and not _strangers():
        try:
            _spare = _fork_copy()
        except (OSError, RuntimeError):
            pass  # at the process limit: the next request forks, or says why not


def invalidate() -> None:
    """A cell is about to run in the parent: a spare copy would not have its
    effects, so it goes (its relay reaps it). Its memory is freed before the
    cell writes to pages they share, which would be copied else."""
    global _spare
    s, _spare = _spare, None
    if s is None:
        return
    _signal(s.pid, signal.SIGKILL)
    for _ in range(100):
        try:
            with open("/proc/%d/stat" % s.pid, "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    return
        except (OSError, IndexError):
            return  # reaped already
        time.sleep(0.001)


def _fork_copy():
    """Forks a copy of the kernel, set up as a session but for its name,
    with its relay running; returns it as a Session without a number."""
    reap_zombies()
    s = Session(None, None)
    s.private = PRIVATE_PREFIX + secrets.token_hex(16)
    req_r, s.req_w = os.pipe()
    s.rep_r, rep_w = os.pipe()
    gc.freeze()  # the parent's objects stay out of the child's collections
    try:
        with _lock, driver._proto_lock, warnings.catch_warnings():
            # The only other threads are the driver's: blocked reading a
            # pipe, or waiting for the protocol lock this thread holds.
            warnings.simplefilter("ignore", DeprecationWarning)
            if not _sessions:  # the fork point: what a session's end keeps
                _note_scratch()
            base = _oom_adj()
            if base is not None:  # the child inherits it: killed first at the limit
                _oom_adj(min(1000, max(base, 0) + OOM_SCORE_ADJ))
            try:
                s.pid = os.fork()
            except OSError:
                _oom_adj(base)
                raise
            if s.pid == 0:
                _become_child(req_r, rep_w, s.private)  # never returns
            _oom_adj(base)  # down again to where it was: allowed without privileges
            _session_pids.add(s.pid)
            _live[s.pid] = s.private
    except OSError:
        os.close(s.req_w)
        os.close(s.rep_r)
        raise
    finally:
        gc.unfreeze()
        os.close(req_r)
        os.close(rep_w)
    feeding = False
    try:
        for target in (_feed, _relay):  # the relay last: it reaps the copy
            t = threading.Thread(target=target, args=(s,), name="analyst-session-%d" % s.pid, daemon=True)
            _own_threads.add(t)
            t.start()
            feeding = True
    except RuntimeError:
        # No thread to serve it (threads count against the process limit).
        _signal(s.pid, signal.SIGKILL)
        os.waitpid(s.pid, 0)
        os.close(s.rep_r)
        if feeding:
            s.requests.put(None)  # the feeder closes the request pipe
        else:
            os.close(s.req_w)
        raise
    return s


def _refusal(number, name, cfg, threads):
    if _child is not None:
        return "a forked session cannot fork; fork its parent"
    if not isinstance(number, int) or not isinstance(name, str) or not NAME_RE.match(name):
        return "a session needs a number and a name of lowercase letters, digits and '-'"
    with _lock:
        if number in _cancelled:
            return "session %d was cancelled before it was forked" % number
        if number in _sessions or any(s.name == name for s in _sessions.values()):
            return "a session %r (number %d) is still running" % (name, number)
    strangers = _strangers() if threads else []
    if strangers:
        return ("the kernel has threads its code started (%s); a fork would copy the locks they "
                "hold without the threads: stop them (shut thread pools down) before forking"
                % ", ".join(strangers[:5]))
    return None


def _strangers():
    """Threads the cells started, Python's or native (after OpenMP's pool,
    which can be released, is)."""
    _release_openmp()
    names = sorted(t.name for t in threading.enumerate() if t not in _own_threads and t.is_alive())
    return names + _native_threads()


def _release_openmp():
    """Ends OpenMP's worker threads, if a library loaded libgomp (the parent
    starts them again on its next parallel region)."""
    import ctypes

    try:
        gomp = ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD)
    except OSError:
        return
    gomp.omp_pause_resource_all(2)  # omp_pause_hard: the threads, not only their state


def _native_threads():
    """Threads of this process that Python does not know of (a C library's
    pool), as "name (native)"; they get a moment to finish exiting."""
    for _ in range(20):
        known = {t.native_id for t in threading.enumerate()}
        others = []
        for tid in os.listdir("/proc/self/task"):
            if int(tid) not in known:
                try:
                    with open("/proc/self/task/%s/comm" % tid) as f:
                        others.append("%s (native)" % f.read().strip())
                except OSError:
                    pass  # it has just ended
        if not others:
            return []
        time.sleep(0.005)
    return others


def _area(cfg, name):
    """Session name's output area, or None."""
    out = cfg.get("output_dir")
    return os.path.join(out, name) if out else None


def _remove_leftover_areas(cfg, name):
    """Removes what is at the output area of session name before it is
    forked (no live session has the name): a session's code may have made
    it, to block the fork or to read what the new session writes there."""
    path = _area(cfg, name)
    if path:
        _remove(path)


def _remove(path):
    """Removes path, whatever it is, following no link."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)  # fd-based: follows no link
        else:
            os.unlink(path)
    except OSError:
        pass


def _note_scratch():
    prefix = os.path.basename(PRIVATE_PREFIX)  # a copy's folder is never the kernel's
    for folder in SCRATCH:
        try:
            _scratch_base[folder] = {n for n in os.listdir(folder) if not n.startswith(prefix)}
        except OSError:
            _scratch_base[folder] = None


def _clean_scratch(ended):
    """Removes session ended's folder and what appeared directly in /tmp and
    /dev/shm since the fork point, but the folders of the live sessions and
    the spare: what a session left there must not reach a later one."""
    _remove(ended.private)
    gone = []
    with _lock:  # a copy forked after the listing made its folder after it too
        keep = {os.path.basename(p) for p in _live.values()}
        for folder, base in _scratch_base.items():
            try:
                names = os.listdir(folder) if base is not None else []
            except OSError:
                continue
            gone += [os.path.join(folder, n) for n in names if n not in base and n not in keep]
    for path in gone:
        _remove(path)


def route(line: str) -> None:
    """The parent's reader hands over "@N <request>" lines for session N."""
    head, _, rest = line.partition(" ")
    try:
        number = int(head[1:])
    except ValueError:
        driver.reply("protocol_error", error="bad session frame %r" % head[:40])
        return
    with _lock:
        s = _sessions.get(number)
    if s is not None:  # else it has ended, and Go has been or will be told
        s.requests.put((rest + "\n").encode("utf-8", "replace"))


def kill(number: int) -> None:
    """Kills session number at once (it ignored an interrupt, or Go closes
    it, or gave up waiting for it to be forked)."""
    with _lock:
        s = _sessions.get(number)
        if s is None:
            _cancelled.add(number)
    if s is not None:
        _kill_session_tree(s.pid)


def _kill_session_tree(pid):
    """Kills session process pid and every process below it: stopped first,
    so its descendants stay its own (it is their subreaper) until they are
    dead."""
    _signal(pid, signal.SIGSTOP)
    kill_descendants(pid)
    _signal(pid, signal.SIGKILL)
    _signal(pid, signal.SIGCONT)


def _feed(s):
    """Writes the requests routed to s into its pipe, so a session that stops
    reading blocks only itself."""
    with os.fdopen(s.req_w, "wb", buffering=0) as pipe:
        while True:
            data = s.requests.get()
            if data is None:
                return
            try:
                pipe.write(data)
            except OSError:
                return


def _relay(s):
    """Copies the lines s writes to the protocol, framed "@N ", until its
    process ends; then reports the end."""
    import selectors

    prefix = None  # known once it is claimed, before it writes
    buf = bytearray()
    status, too_long = None, False
    sel = selectors.DefaultSelector()
    sel.register(s.rep_r, selectors.EVENT_READ)
    while status is None:
        if sel.select(POLL):
            chunk = _read(s.rep_r)
            if not chunk:
                status = _wait(s.pid, block=True)
                break
            buf += chunk
            if b"\n" in chunk:
                *lines, rest = buf.split(b"\n")
                first = prefix is None
                if first:
                    with _lock:  # claimed before it wrote, see _claim
                        prefix = b"@%d " % s.number
                _write_framed(prefix, lines)
                if first:
                    _relayed_first_line(s)
                buf = bytearray(rest)
            if len(buf) > MAX_LINE:
                too_long = True
                _signal(s.pid, signal.SIGKILL)
                status = _wait(s.pid, block=True)
        else:
            # Its pipe may be held open by a process it forked: watch the pid.
            status = _wait(s.pid, block=False)
            reap_zombies()
    sel.close()
    _end(s, status, too_long)


def _read(fd):
    try:
        return os.read(fd, 1 << 20)
    except OSError:
        return b""


def _write_framed(prefix, lines):
    if any(line.startswith(b'{"type":"status"') for line in lines):
        # The cell's strays are dead: reap those left to us before Go hears
        # the cell ended, so its next cell finds them gone.
        reap_zombies()
    with driver._proto_lock:
        out = driver._proto_out
        out.flush()
        for line in lines:
            out.buffer.write(prefix + line + b"\n")
        out.buffer.flush()


def _wait(pid, block):
    """The exit status of session process pid, or None while it runs."""
    if block:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            st = _wait(pid, block=False)
            if st is not None:
                return st
            time.sleep(0.01)
        _signal(pid, signal.SIGKILL)  # closed its pipe but lives on
    try:
        got, st = os.waitpid(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        return -1
    return st if got else None


def _end(s, status, too_long):
    """A session's process has ended: its strays are killed, its folders
    removed, and Go is told how it ended."""
    with _lock:
        claimed = _sessions.get(s.number) is s
    _relayed_first_line(s)  # ended before it was ready
    with _lock:
        _live.pop(s.pid, None)
    kill_orphans()
    s.requests.put(None)
    os.close(s.rep_r)
    oom = _oom_killed()  # read even for a spare, so its death is not another's
    if not claimed:
        _remove(s.private)
        return  # a spare: nobody to tell
    with _lock:
        _sessions.pop(s.number, None)
    area = _area(driver._config, s.name)
    if area:
        _remove(area)
    _clean_scratch(s)
    code = sig = None
    if status is not None and status >= 0:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        elif os.WIFEXITED(status):
            code = os.WEXITSTATUS(status)
    oom = oom and sig == signal.SIGKILL
    note = "it sent a protocol line over %d bytes and was killed" % MAX_LINE if too_long else ""
    driver.reply("fork_end", session=s.number, exit_code=code, signal=sig, oom=oom, note=note)


def _oom_killed():
    """Whether the container's memory cgroup killed a process since last asked."""
    before = _oom_kills[0]
    _oom_kills[0] = oom_kill_count()
    return _oom_kills[0] is not None and _oom_kills[0] > (before or 0)


def oom_kill_count() -> int | None:
    """The container's OOM-kill count (cgroup v2 memory.events, v1
    memory.oom_control), or None where neither can be read."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


# ---- processes --------------------------------------------------------------

# A session's process is a child subreaper (PR_SET_CHILD_SUBREAPER): a
# process it starts stays its descendant whatever it does (double fork,
# setsid), so its processes are found by parent pid, not by session id,
# which a process may leave. When the session's process dies first, its
# processes become the kernel's children, with a session id that is not
# the kernel's: kill_orphans finds them there.
PR_SET_CHILD_SUBREAPER = 36


def _procs():
    """(pid, parent pid, session id, state) of every process in the container."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out.append((int(name), int(fields[1]), int(fields[3]), fields[0]))
    return out


def _below(roots, procs):
    """The processes of procs below the pids in roots, as (pid, state)."""
    children = {}
    for pid, ppid, _, state in procs:
        children.setdefault(ppid, []).append((pid, state))
    out, todo = [], list(roots)
    while todo:
        for pid, state in children.get(todo.pop(), ()):
            out.append((pid, state))
            todo.append(pid)
    return out


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _kill_until_gone(find):
    """SIGKILLs the live processes find() returns until it returns none
    (a process may fork while it is being killed); returns how many."""
    killed = set()
    for _ in range(400):
        left = [pid for pid, state in find() if state != b"Z"]
        if not left:
            break
        killed.update(left)
        for pid in left:
            _signal(pid, signal.SIGKILL)
        time.sleep(0.002)
    return len(killed)


def kill_descendants(pid: int) -> int:
    """Kills every process below pid."""
    return _kill_until_gone(lambda: _below([pid], _procs()))


def _orphans(procs):
    """Children of the kernel (the container's first process) that are no
    live session or spare and not in the kernel's own session: processes of
    ended sessions, whatever session id they took."""
    me, my_sid = os.getpid(), os.getsid(0)
    with _lock:
        ours = set(_live)
    return [(pid, state) for pid, ppid, sid, state in procs
            if ppid == me and pid not in ours and sid != my_sid]


def kill_orphans() -> None:
    """Kills the processes of ended sessions and everything below them, and
    reaps them."""
    if os.getpid() != 1:
        return
    def find():
        procs = _procs()
        top = _orphans(procs)
        return top + _below([pid for pid, _ in top], procs)
    _kill_until_gone(find)
    reap_zombies()


def reap_zombies() -> None:
    """Reaps ended processes left to the container's first process by ended
    sessions. Only those: a cell's own subprocesses are waited for by the
    cell, a session by its relay."""
    if os.getpid() != 1:
        return
    for pid, state in _orphans(_procs()):
        if state == b"Z" and pid not in _session_pids:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def reap_strays() -> int | None:
    """After a cell: kills the processes it left behind. In a session: every
    process below it. In a parent with live sessions: every process but the
    sessions' and theirs (so it may not kill all at once). Returns the
    count, or None where the driver's own way applies (no sessions)."""
    if _child is not None:
        n = kill_descendants(os.getpid())
        driver._reap_zombies()
        return n
    with _lock:
        live = set(_live)
    if not live:
        return None
    me = os.getpid()

    def find():
        procs = _procs()
        theirs = live | {pid for pid, _ in _below(live, procs)}
        return [(pid, state) for pid, _, _, state in procs if pid != me and pid not in theirs]
    n = _kill_until_gone(find)
    for pid, ppid, _, state in _procs():
        if state == b"Z" and ppid == me and pid not in live:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
    return n


# ---- the child ----------------------------------------------------------------

def _become_child(req_r, rep_w, private):
    """Turns the forked copy into a session: what does not depend on its
    name at once, then, once a fork request claims it (the first line on
    its pipe), the rest; then serves it. Never returns."""
    global _child, _lock
    code = 0
    try:
        _set_dumpable(False)  # inherited; again, whatever the kernel's code did
        _child = Session(None, None)
        _child.pid = os.getpid()
        _lock = threading.Lock()
        _sessions.clear()
        _unready.clear()
        if _oom_adj_fd[0] is not None:  # the kernel's, not this process's
            os.close(_oom_adj_fd[0])
            _oom_adj_fd[0] = None
        os.setsid()  # out of the kernel's session: kill_orphans tells its processes by that
        _prctl(PR_SET_CHILD_SUBREAPER, 1)  # and they stay below it, whatever they do
        _neutralize_fds(keep={0, 1, 2, req_r, rep_w})
        _inherited.append((driver._proto_in, driver._proto_out))
        driver._proto_in = os.fdopen(req_r, "r", encoding="utf-8", errors="replace")
        driver._proto_out = os.fdopen(rep_w, "w", encoding="utf-8", errors="replace")
        driver._proto_lock = threading.Lock()  # the inherited one is held
        driver.DRIVER_PID = _child.pid
        driver._redirect_fd(1, "stdout")
        driver._redirect_fd(2, "stderr")
        _close_figures()
        _reseed(0)  # copies the generators' pages now, not when claimed
        _rlimits()
        _private_folder(private)
        line = driver._proto_in.readline()
        if line:
            _serve_claimed(json.loads(line))
            kill_descendants(_child.pid)  # nothing it started outlives it
    except BaseException:
        code = 70
        try:  # straight to its pipe: the driver's channel may not be set up yet
            import traceback

            msg = {"type": "protocol_error", "error": "the forked session failed: " + traceback.format_exc()[-2000:]}
            os.write(rep_w, (json.dumps(msg) + "\n").encode())
        except BaseException:
            pass
    finally:
        # Never the parent's exit path: its atexit handlers and finalizers
        # belong to the parent (they would remove its temporary files).
        os._exit(code)


def _serve_claimed(claim):
    """The rest of a session's set-up, once claimed; then it serves."""
    s = _child
    s.number, s.name = claim["session"], claim["name"]
    cfg = _child_config(driver._config, s.name)
    driver._config = cfg
    driver._output_seen.clear()
    _outside_seen.update(_files_outside_area())
    _cap_memory(cfg.get("session_memory"))
    _reseed(claim.get("seed"))
    driver.reply("ready", pid=s.pid, uid=os.getuid(), python=sys.version.split()[0], rlimits=_rlimits(),
                 preload_ms=round((time.monotonic() - claim["started"]) * 1000, 3))
    q = queue.Queue()  # requests wait in the pipe until the reader runs
    threading.Thread(target=driver._reader, args=(q,), name="analyst-reader", daemon=True).start()
    driver.serve(q, cfg)


def _neutralize_fds(keep):
    """Gives the child its own descriptions of the parent's regular files,
    folders and devices (same position), and puts /dev/null in place of its
    pipes and sockets. Numbers stay taken, so a Python object that still
    holds one never closes a descriptor the child opens later."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd in keep or fd == devnull:
            continue
        try:
            st = os.fstat(fd)
        except OSError:
            continue  # the listing's own descriptor, closed by now
        inheritable = os.get_inheritable(fd)
        mode = st.st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) \
                or not _reopen(fd, inheritable, stat.S_ISREG(mode)):
            os.dup2(devnull, fd, inheritable=inheritable)
    os.close(devnull)


def _reopen(fd, inheritable, seekable):
    try:
        flags, pos = 0, 0
        with open("/proc/self/fdinfo/%d" % fd) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key == "flags":
                    flags = int(value.strip(), 8)
                elif key == "pos":
                    pos = int(value.strip())
        flags &= ~(os.O_CREAT | os.O_EXCL | os.O_TRUNC | os.O_NOCTTY)
        new = os.open("/proc/self/fd/%d" % fd, flags)
    except (OSError, ValueError):
        return False
    os.dup2(new, fd, inheritable=inheritable)
    os.close(new)
    if seekable and not flags & os.O_APPEND:
        try:
            os.lseek(fd, pos, os.SEEK_SET)
        except OSError:
            pass
    return True


def _child_config(cfg, name):
    cfg = dict(cfg)
    if cfg.get("output_dir"):
        cfg["output_dir"] = os.path.join(cfg["output_dir"], name)
        _make_area(cfg["output_dir"])
    return cfg


def _make_area(path):
    """Makes the session's output area anew and keeps it open: its files are
    copied out from this folder (output_area), wherever a sibling moves it,
    never from what the path leads to later. The parent removed what was
    at the path; a sibling may have put something there again since."""
    for _ in range(5):
        try:
            os.mkdir(path, 0o755)
            break
        except FileExistsError:
            _remove(path)
    else:
        raise OSError("%s: another session keeps making it; the session's folder must be new" % path)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    st = os.fstat(fd)
    _area_fd[0], _area_fd[1] = fd, (st.st_dev, st.st_ino)


def output_area() -> tuple[int, bool] | None:
    """In a child: (descriptor of its output area, whether its path still
    leads to it); None in the parent."""
    if _area_fd[0] is None:
        return None
    try:
        st = os.lstat(driver._config["output_dir"])
        same = (st.st_dev, st.st_ino) == _area_fd[1]
    except OSError:
        same = False
    return _area_fd[0], same


def _files_outside_area():
    """The regular files directly in /output (a child's area is a folder in it)."""
    area = driver._config.get("output_dir")
    if _child is None or not area:
        return {}
    out = {}
    try:
        with os.scandir(os.path.dirname(area)) as entries:
            for e in entries:
                if e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    out[e.name] = (st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        pass
    return out


def note_outside_area(cell: "driver.Cell") -> None:
    """After a session's cell: names the files written directly in /output
    since it last looked, which are not its to copy out."""
    if _child is None:
        return
    current = _files_outside_area()
    new = sorted(n for n, key in current.items() if _outside_seen.get(n) != key)
    _outside_seen.clear()
    _outside_seen.update(current)
    if new:
        area = driver._config["output_dir"]
        cell.outputs.append(driver._marker_stream(
            "[analyst: not copied out: %s, written directly in /output; this forked session "
            "keeps the files it writes under %s]" % (", ".join("/output/" + n for n in new[:20]), area)))


def _private_folder(path):
    """Makes the copy's own folder (a random name, made before any session
    could learn it) its working folder, TMPDIR, HOME and MPLCONFIGDIR (a
    copy of the kernel's: a planted matplotlibrc stays in its session), so
    nothing a session leaves there reaches another; the parent removes it
    when the session ends."""
    os.mkdir(path, 0o700)
    mpl = os.environ.get("MPLCONFIGDIR")
    if mpl and os.path.isdir(mpl):
        dst = os.path.join(path, "matplotlib")
        shutil.copytree(mpl, dst, symlinks=True)
        os.environ["MPLCONFIGDIR"] = dst
    os.chdir(path)
    os.environ["TMPDIR"] = os.environ["HOME"] = path
    tempfile.tempdir = path


def _cap_memory(container):
    """Caps the session's address space, hard (it cannot raise it): what it
    has now plus the container's memory less twice what the kernel holds
    (the session may copy each page it shares on write), at least
    MIN_SESSION_MEMORY. A runaway session gets a MemoryError instead of the
    container's limit killing it, its siblings or the kernel."""
    if not container:
        return
    size = rss = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                size = int(line.split()[1]) * 1024
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
    cap = size + max(container - 2 * rss, MIN_SESSION_MEMORY)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _reseed(seed):
    if not isinstance(seed, int):
        return
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (1 << 32))


def _close_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def _rlimits():
    out = {}
    for key, res in (("as", resource.RLIMIT_AS), ("nproc", resource.RLIMIT_NPROC),
                     ("nofile", resource.RLIMIT_NOFILE), ("fsize", resource.RLIMIT_FSIZE)):
        soft, _ = resource.getrlimit(res)
        if soft != resource.RLIM_INFINITY:
            out[key] = soft
    return out
