"""Runs stage files as a notebook runs them: in one namespace, in the order of
the notebook's cells (see eda's TestCellsUseNamesEarlierCellsDefine), after
setup.py. The files' constants have analyst's defaults, so they run as a
run's cells do without analyst filling them in.

Run the tests with the kernel image's own Python: `go test ./eda/ -run
TestPythonUnitTests` (docs/architecture.md says how to run them by hand)."""
import os

PY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_compiled = {}


def source(name: str) -> str:
    """The text of eda/py/name."""
    with open(os.path.join(PY, name), encoding="utf-8") as f:
        return f.read()


def run(*files: str, **names) -> dict:
    """The namespace after setup.py, then names (what other cells would have defined),
    then files ran in it. display() there appends what it shows to the list shown."""
    shown = []
    namespace = {"__name__": "__stage__", "display": lambda *objs, **kw: shown.extend(objs), "shown": shown}
    for i, name in enumerate(("setup.py",) + files):
        if name not in _compiled:
            _compiled[name] = compile(source(name), os.path.join(PY, name), "exec")
        exec(_compiled[name], namespace)
        if i == 0:
            namespace.update(names)
    return namespace


def loader() -> dict:
    """The loader's namespace: where the data is, its functions and the other formats'."""
    return run("load_source.py", "load.py", "load_formats.py")
