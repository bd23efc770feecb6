

# ---- A large delimited file, parsed on every core ------------------------------------
# pandas' parser holds the GIL while it makes the strings of text columns, so threads over parts
# of a file do not overlap (docs/benchmarks.md, issue 36). Forked worker processes do: each parses
# one part of the file (cut at a line end outside quotes) and sends back its numbers as arrays and
# its text columns factorized: a code per row and the part's distinct values, small to send where
# millions of strings would not be. The parent merges the distinct values, remaps the codes and
# keeps them for the profile (FACTORIZED), so the text is hashed once, in the workers. Whenever a
# part is not read as one reading would read it (pandas fails or warns on it; the parts' types
# disagree), the file is read in one part, as always, so every rule and note of the loader holds.
PARTS_MIN_BYTES = 32 * 2**20  # smaller files are read in one part
PARTS_MAX = 4  # worker processes at most (one part each)
PART_ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "iso-8859-1")  # a line end is the byte \n in these


def part_count(path, encoding):
    """How many parts the file is parsed in: one per core this process may run on (at most
    PARTS_MAX), or 1 (one reading) for a small file, another encoding, or where fork is not
    what it is on Linux."""
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "fork"):  # Linux only
        return 1
    if os.path.getsize(path) < PARTS_MIN_BYTES or encoding.replace("_", "-").lower() not in PART_ENCODINGS:
        return 1
    return max(1, min(PARTS_MAX, len(os.sched_getaffinity(0))))


class FilePart(io.RawIOBase):
    """Bytes start to end of the file at path, read as a file."""

    def __init__(self, path, start, end):
        super().__init__()
        self.file, self.at, self.end = open(path, "rb"), start, end
        self.file.seek(start)

    def readable(self):
        return True

    def readinto(self, out):
        n = self.file.readinto(memoryview(out)[:max(0, self.end - self.at)])
        self.at += n
        return n

    def close(self):
        self.file.close()
        super().close()


def next_line_end(f, at):
    """The offset just after the first line end at or after at in the open file f, or None."""
    f.seek(at)
    while block := f.read(2**16):
        i = block.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(block)
    return None


def part_ends(path, parts):
    """Where parts of the file end: at line ends about size / parts apart, each with an even
    count of quote characters before it (a quoted field that spans lines holds its line ends
    inside an odd count). A quote that does not quote (5'11" in a plain field) can make a cut
    fall inside a quoted field: pandas then fails on the part before it (a quote left open at
    its end), and the file is read in one part."""
    size, ends, quotes, at = os.path.getsize(path), [], 0, 0
    with open(path, "rb") as f:
        for k in range(1, parts):
            end = next_line_end(f, max(at, size * k // parts))
            while end is not None:
                f.seek(at)
                quotes += f.read(end - at).count(b'"')
                at = end
                if quotes % 2 == 0:
                    break
                end = next_line_end(f, end)
            if end is None:
                break
            ends.append(end)
    return sorted({e for e in ends if e < size}) + [size]


def parsed_part(path, start, end, options):
    """The part's columns as pd.read_csv(part, **options) reads them: ("values", array) for a
    column of numbers, ("codes", codes, distinct values) for text (pd.factorize); None when
    pandas warns (a ragged row, whose line number only one reading gets right)."""
    messages = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(messages):
        warnings.simplefilter("always")
        with FilePart(path, start, end) as data, pd.option_context("mode.copy_on_write", True):
            frame = pd.read_csv(data, **options)
    if caught or messages.getvalue():
        return None
    columns = []
    for i in range(len(frame.columns)):
        values = frame.iloc[:, i].to_numpy()
        if values.dtype == object:
            codes, uniques = pd.factorize(values)
            columns.append(("codes", codes.astype(np.int32), uniques))
        else:
            columns.append(("values", values))
    return columns


def forked(task, args, arrived):
    """[task(*a) for a in args], each in a forked process, its result pickled back; None when
    any of them fails or returns None. arrived(i) is called as the result of args[i] arrives."""
    children = []
    try:
        for a in args:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: no cleanup of the parent's state, no return into its code
                os.close(read_end)
                try:
                    with os.fdopen(write_end, "wb") as out:
                        try:
                            result = task(*a)
                        except Exception:  # the parent reads the file in one part and says what is wrong
                            result = None
                        pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
                finally:
                    os._exit(0)
            os.close(write_end)
            children.append((pid, os.fdopen(read_end, "rb")))
        results = []
        for pid, pipe in children:
            with pipe:
                results.append(pickle.load(pipe))
            if results[-1] is None:
                return None
            arrived(len(results) - 1)
        return results
    except (EOFError, OSError, pickle.UnpicklingError):
        return None
    finally:
        for pid, pipe in children:
            pipe.close()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # done already, or stopped half-way (an interrupt)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def log_part(ends, i):
    """Logs to progress_log that the parts up to the one ending at ends[i] are in columns."""
    size = ends[-1]
    shown = f"{amount(size, size)} " + ("MiB" if size >= 2**20 else "bytes")
    progress_log.info(f"converted {amount(ends[i], size)} of {shown} into columns ({ends[i] / size:.0%}; "
                      f"part {i + 1} of {len(ends)}, parsed in parallel)",
                      extra={"done": ends[i], "total": size, "unit": "bytes"})


def merged_column(parts):
    """One column from its parts' ("values", ...) or ("codes", ...): (array, None) for numbers,
    (values, (codes, uniques)) for text, as one reading would type it; None when one reading
    would type it otherwise. Numbers whole in some parts and fractions in others are fractions
    (one reading makes them so; whole numbers within 2**53, which floats hold exactly); a part
    with nothing in a text column (all missing: floats) holds missing values."""
    if all(p[0] == "values" for p in parts):
        arrays = [p[1] for p in parts]
        kinds = {a.dtype for a in arrays}
        exact = all(a.dtype.kind != "i" or len(a) == 0 or (a.min() > -2**53 and a.max() < 2**53) for a in arrays)
        if len(kinds) == 1 or (kinds == {np.dtype(np.int64), np.dtype(np.float64)} and exact):
            return np.concatenate(arrays), None
        return None
    if any(p[0] == "values" and not (p[1].dtype.kind == "f" and np.isnan(p[1]).all()) for p in parts):
        return None  # numbers in one part, text in another: one reading makes the numbers text
    texts = [p[2] if p[0] == "codes" else np.empty(0, dtype=object) for p in parts]
    where, uniques = pd.factorize(np.concatenate(texts))  # in order of first appearance, as for the whole column
    codes, at = [], 0
    for p, text in zip(parts, texts):
        if p[0] == "codes":
            codes.append(np.append(where[at:at + len(text)].astype(np.int32), np.int32(-1))[p[1]])  # -1 stays -1
        else:
            codes.append(np.full(len(p[1]), -1, dtype=np.int32))
        at += len(text)
    codes = np.concatenate(codes)
    named = np.empty(len(uniques) + 1, dtype=object)
    named[:-1], named[-1] = uniques, np.nan  # code -1 names the missing value, as pandas reads it
    return named.take(codes), (codes, uniques)


def read_in_parts(path, parts, options, first):
    """The file read as pd.read_csv(path, **first, **options) reads it, in parts parsed by
    forked processes (see part_ends, parsed_part), the text columns' codes kept in FACTORIZED;
    or None when it must be read in one part."""
    ends = part_ends(path, parts)
    if len(ends) < 2:
        return None
    starts = [0] + ends[:-1]
    try:
        with warnings.catch_warnings(record=True), pd.option_context("mode.copy_on_write", True), \
                FilePart(path, 0, ends[0]) as data:
            names = list(pd.read_csv(data, nrows=0, **first, **options).columns)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error, ValueError):
        return None  # the reading in one part says what is wrong
    rest = dict(options, header=None, names=names)
    args = [(path, s, e, dict(options, **first) if i == 0 else rest) for i, (s, e) in enumerate(zip(starts, ends))]
    progress_log.info(f"reading {amount(ends[-1], ends[-1])} {'MiB' if ends[-1] >= 2**20 else 'bytes'} "
                      f"in {len(args)} parts, one per core", extra={"done": 0, "total": ends[-1], "unit": "bytes"})
    results = forked(parsed_part, args, lambda i: log_part(ends, i))
    if results is None or any(len(r) != len(names) for r in results):
        return None
    columns, kept = {}, {}
    for i, name in enumerate(names):
        merged = merged_column([r[i] for r in results])
        if merged is None:
            return None
        columns[name], kept[name] = merged
    del results
    with pd.option_context("mode.copy_on_write", True):
        df = pd.DataFrame(columns, copy=False)
    for name, codes in kept.items():
        if codes is not None:
            FACTORIZED[str(name)] = (values_key(df[name].to_numpy()), codes[0], codes[1],
                                     np.bincount(codes[0] + 1, minlength=len(codes[1]) + 1))
    return df
