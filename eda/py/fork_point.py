import copy as _analyst_copy
import random as _analyst_random
import sys as _analyst_sys

import matplotlib as _analyst_mpl

# Names of the notebook's machinery, never taken or put back.
_ANALYST_KEEP = {"In", "Out", "get_ipython", "exit", "quit"}


def _analyst_copied(value):
    """A copy of a global for a later question: data frames, series and
    arrays copied whole, containers deeply, the rest (modules, functions,
    numbers, text) as it is."""
    if isinstance(value, (pd.DataFrame, pd.Series, pd.Index, np.ndarray)):
        return value.copy()
    if isinstance(value, (list, dict, set)):
        try:
            return _analyst_copy.deepcopy(value)
        except Exception:
            return value
    return value


def _analyst_fork_point(seed, area=None):
    """Begins a question that analyst answered in a session of its own,
    forked from the kernel as it was after the cells above the first
    question: it saw their state, nothing another question did. There,
    this only seeds random and numpy's generator with the session's seed.
    Run top to bottom (Jupyter, nbconvert, analyst verify), the first
    question's call keeps a copy of the globals (data frames copied whole)
    and Matplotlib's settings, and each later one puts them back, so every
    question starts from the same state, as it did in its fork, and makes
    the folder the session kept its files in (area), where it can."""
    forked = _analyst_sys.modules.get("analyst_fork")
    if forked is None or not forked.in_child():
        g = globals()
        base = g.get("_analyst_fork_base")
        if base is None:
            g["_analyst_fork_base"] = (
                {k: _analyst_copied(v) for k, v in g.items() if not k.startswith("_") and k not in _ANALYST_KEEP},
                dict(_analyst_mpl.rcParams),
            )
        else:
            names, rc = base
            for k in [k for k in g if not k.startswith("_") and k not in _ANALYST_KEEP and k not in names]:
                del g[k]
            g.update({k: _analyst_copied(v) for k, v in names.items()})
            dict.update(_analyst_mpl.rcParams, rc)  # as rc_context does: no re-validation
        plt.close("all")
        if area:
            try:
                os.makedirs(area, exist_ok=True)
            except OSError:
                pass  # no /output here: the code that writes there fails as it would
    _analyst_random.seed(seed)
    np.random.seed(seed)
