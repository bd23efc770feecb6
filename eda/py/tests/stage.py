"""Runs stage files as a notebook runs them: in one namespace, in the order of
the notebook's cells (see eda's TestCellsUseNamesEarlierCellsDefine), after
setup.py. The files' constants have analyst's defaults, so they run as a
run's cells do without analyst filling them in.

Run the tests with the kernel image's own Python: `go test ./eda/ -run
TestPythonUnitTests` (docs/architecture.md says how to run them by hand)."""
import ast
import os

PY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_compiled = {}


def source(name: str) -> str:
    """The text of eda/py/name."""
    with open(os.path.join(PY, name), encoding="utf-8") as f:
        return f.read()


def with_constants(name: str, values: dict) -> str:
    """The text of eda/py/name with its top-level constants set to values (their repr), as
    analyst sets them for a run (eda's constants)."""
    text = source(name)
    lines = text.splitlines(keepends=True)
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and getattr(node.targets[0], "id", None) in values:
            v = node.value
            first, last = lines[v.lineno - 1], lines[v.end_lineno - 1]
            lines[v.lineno - 1:v.end_lineno] = [first[:v.col_offset] + repr(values[node.targets[0].id]) + last[v.end_col_offset:]]
    return "".join(lines)


def run(*files, **names) -> dict:
    """The namespace after setup.py, then names (what other cells would have defined),
    then files ran in it; a file is a name, or (name, {constant: value}) to set its constants.
    display() there appends what it shows to the list shown."""
    shown = []
    namespace = {"__name__": "__stage__", "display": lambda *objs, **kw: shown.extend(objs), "shown": shown}
    then(namespace, "setup.py")
    namespace.update(names)
    return then(namespace, *files)


def then(namespace: dict, *files) -> dict:
    """namespace after files ran in it, as later cells run after earlier ones (files as run's)."""
    for f in files:
        if isinstance(f, tuple):
            code = compile(with_constants(*f), os.path.join(PY, f[0]), "exec")
        else:
            if f not in _compiled:
                _compiled[f] = compile(source(f), os.path.join(PY, f), "exec")
            code = _compiled[f]
        exec(code, namespace)
    return namespace


def loader() -> dict:
    """The loader's namespace: where the data is, its functions and the other formats'."""
    return run("load_source.py", "load.py", "load_formats.py", "load_exports.py")
