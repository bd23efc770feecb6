# The documents beside the tables (a manual, a README) are read, not loaded: read_doc prints
# one, or one section of it. Headings are Markdown's "#" headings as analyst lists them for
# the model: one to six "#" at the start of a line (indented at most three spaces), outside
# code fenced with ``` or ~~~; "line" counts from 1.
DOCS_DIR = "/data"  # where the documents are; change it to re-run elsewhere
DOC_MAX_BYTES = 67_108_864  # read_doc reads at most this much of a document


def doc_fence(line):
    """The fence (a run of three or more ` or ~) that the line opens or closes, or None."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3 or len(s) < 3 or s[0] not in "`~":
        return None
    n = len(s) - len(s.lstrip(s[0]))
    if n < 3 or (s[0] == "`" and "`" in s[n:]):
        return None
    return s[:n]


def doc_heading(line):
    """(level, text) of a "#" heading line, or None; a closing run of # is not part of the text."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return None
    n = len(s) - len(s.lstrip("#"))
    if n == 0 or n > 6 or (n < len(s) and s[n] not in " \t"):
        return None
    text = s[n:].strip(" \t")
    bare = text.rstrip("#")
    if bare == "":
        text = ""
    elif len(bare) < len(text) and bare[-1] in " \t":
        text = bare.strip(" \t")
    return n, text


def doc_headings(lines):
    """(line index from 0, level, text) of each heading of the lines."""
    found, fence = [], None
    for i, line in enumerate(lines):
        f = doc_fence(line)
        if f is not None:
            if fence is None:
                fence = f
            elif f.startswith(fence) and line.strip(" \t").lstrip(f[0]).strip(" \t") == "":
                fence = None
            continue
        h = None if fence is not None else doc_heading(line)
        if h is not None:
            found.append((i, *h))
    return found


def read_doc(name, heading=None):
    """Prints the document DOCS_DIR/name whole, or, given a heading, its section: from the
    heading whose text is the one given (ignoring case and spaces; else the one heading that
    contains it) to the next heading of the same or a higher level, its subsections included.
    Without a match it prints the document's headings. Long output is cut by the kernel, which
    says so."""
    with open(os.path.join(DOCS_DIR, name), "rb") as f:
        raw = f.read(DOC_MAX_BYTES + 1)
    cut = len(raw) > DOC_MAX_BYTES
    lines = [line[:-1] if line.endswith("\r") else line
             for line in raw[:DOC_MAX_BYTES].decode("utf-8", errors="replace").split("\n")]
    if cut:
        print(f"({name}: only its first {DOC_MAX_BYTES:,} bytes are read)")
    if heading is None:
        print("\n".join(lines))
        return
    headings = doc_headings(lines)
    want = " ".join(str(heading).split()).casefold()
    exact = [h for h in headings if " ".join(h[2].split()).casefold() == want]
    found = exact or [h for h in headings if want in " ".join(h[2].split()).casefold()]
    if not exact and len(found) != 1:
        what = "no heading matches" if not found else f"{len(found)} headings match"
        listing = "\n".join(f"  line {i + 1}: {'#' * level} {text}" for i, level, text in headings)
        print(f"{name}: {what} {heading!r}; its headings are:\n{listing or '  (none)'}")
        return
    start, level, _ = found[0]
    end = next((i for i, lv, _ in headings if i > start and lv <= level), len(lines))
    print(f"{name}, lines {start + 1}-{end}:")
    print("\n".join(lines[start:end]))
