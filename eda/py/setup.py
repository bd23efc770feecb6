import bz2
import contextlib
import csv
import gzip
import heapq
import io
import itertools
import json
import logging
import lzma
import math
import os
import re
import sys
import warnings
import weakref
import zipfile

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

# Charts appear under their cells when this notebook runs in Jupyter
# (analyst's own kernel has no get_ipython and captures them itself).
try:
    get_ipython().run_line_magic("matplotlib", "inline")
except NameError:
    pass



def show_number(x):
    """How tables show a float: 6 significant digits (all digits before the point), thousands
    separated, scientific notation only below 0.0001 or from 10^15. The data keeps full precision."""
    if x == 0 or not math.isfinite(x) or not 1e-4 <= abs(x) < 1e15:
        return f"{x:.6g}"
    decimals = max(0, 5 - math.floor(math.log10(abs(x))))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text


# Wider and longer tables on screen, floats shown by show_number. Matplotlib's
# settings are left at their defaults, so charts come out the same in analyst and in Jupyter.
pd.set_option("display.float_format", show_number)
pd.set_option("display.max_columns", 50)
pd.set_option("display.max_colwidth", 80)
pd.set_option("display.max_rows", 100)
pd.set_option("display.min_rows", 20)
pd.set_option("display.width", 120)

# Long cells log how far they have got (bytes read, columns profiled) here, at info level.
# analyst's kernel shows it on its progress line; anywhere else it goes nowhere (no handler).
progress_log = logging.getLogger("analyst.progress")
progress_log.propagate = False
