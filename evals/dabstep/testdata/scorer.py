"""DABstep's question_scorer semantics, written out again in Python for the
Go scorer's cross-check (python_test.go). Our own transcription of the rules
the official dabstep_benchmark/evaluation/scorer.py applies, not its file:
the point is that Python's own str, re, float, round, math.isclose and
difflib decide every step.

Reads a JSON list of [answer, gold] pairs on stdin; writes a JSON list of
verdicts.
"""

import difflib
import json
import math
import re
import sys

COMMA_NUMBER = re.compile(r"\$?(\d{1,3}(,\d{3})+(\.\d+)?|\d+[.,]\d+)")
NUMBER = re.compile(r"(\d*\.\d+|\d+\.?\d*)%?")


def first_number(text):
    found = NUMBER.search(text.replace(",", "").replace("$", ""))
    return float(found.group(1)) if found else None


def decimals_shown(x):
    shown = str(x)
    return len(shown.split(".")[-1]) if "." in shown else 0


def close(x, y):
    return math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-4)


def same_number(x, y):
    if x == y:
        return True
    if x < 1 and y < 1:
        return close(x, y)
    places = min(decimals_shown(x), decimals_shown(y))
    return round(x, places) == round(y, places) or close(x, y)


def items(text):
    text = re.sub(r"^\[|\]$", "", text.strip())
    return sorted(part.strip() for part in re.split(r"[,;]", text) if part.strip())


def same_list(a, g):
    left, right = items(a), items(g)
    if left == right:
        return True
    if len(left) != len(right):
        return False
    return all(verdict(x, y) for x, y in zip(left, right))


def same_text(a, g):
    if re.sub(r"\W", "", a) == re.sub(r"\W", "", g):
        return True
    left, right = re.findall(r"\b\w+\b", a.lower()), re.findall(r"\b\w+\b", g.lower())
    if left and right and 1 in (len(left), len(right)):
        return set(left) <= set(right) or set(right) <= set(left)
    return difflib.SequenceMatcher(None, a, g).ratio() > 0.95


def verdict(answer, gold):
    a, g = answer.strip().lower(), gold.strip().lower()
    if COMMA_NUMBER.fullmatch(a) or COMMA_NUMBER.fullmatch(g):
        x, y = first_number(a), first_number(g)
        return x is not None and y is not None and same_number(x, y)
    if any(sep in a or sep in g for sep in ",;"):
        return same_list(a, g)
    x, y = first_number(a), first_number(g)
    if x is not None and y is not None:
        return same_number(x, y)
    return same_text(a, g)


if __name__ == "__main__":
    json.dump([verdict(a, g) for a, g in json.load(sys.stdin)], sys.stdout)
