"""The profile (profile_*.py): each column's statistics against values computed by hand, its kind,
and each alert beside its counter-case."""
import ctypes
import math
import os
import tempfile
import unittest

import numpy as np
import openpyxl
import pandas as pd

import gorand
import stage

PROFILE_FILES = ("load_source.py", "load.py", "load_formats.py", "load_exports.py", "profile_helpers.py", "profile_columns.py",
                 "profile_overview.py", "profile_summary.py", "profile_alerts.py", "profile_json.py",
                 "profile_show.py")


def profile_run(df, load_info=None):
    """The namespace after the profile stage's cells ran over df."""
    info = stage.loader()["new_load_info"]()
    info.update(load_info or {})
    return stage.run(*PROFILE_FILES, df=df, load_info=info)


def profile_of(df, load_info=None):
    """The profile the profile stage's cells compute of df, as they show it."""
    ns = profile_run(df, load_info)
    shown = [o for o in ns["shown"] if isinstance(o, dict) and ns["PROFILE_MIME"] in o]
    assert len(shown) == 1, shown
    return shown[0][ns["PROFILE_MIME"]]


def column(profile, name):
    return next(c for c in profile["column_info"] if c["name"] == name)


def alerts(profile, type_):
    return [a.get("column", a.get("columns")) for a in profile["alerts"] if a["type"] == type_]


class TestStatistics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p = profile_of(pd.DataFrame({"x": [1, 2, 3, 4, 10], "y": [1.5, np.nan, 2.5, np.nan, 5.0],
                                         "c": ["a", "b", "a", "a", None]}))

    def test_rows_and_columns(self):
        self.assertEqual((self.p["rows"], self.p["columns"]), (5, 3))
        self.assertEqual(self.p["duplicate_rows"], 0)

    def test_numeric_moments_by_hand(self):
        # x = 1, 2, 3, 4, 10: mean 4, deviations -3 -2 -1 0 6, squares sum 50, so the sample variance
        # is 50/4 and std sqrt(12.5); m2 = 10, m3 = 36, G1 = m3/m2^1.5 * sqrt(n(n-1))/(n-2) = 1.2 sqrt(2).
        x = column(self.p, "x")
        for key, want in [("min", 1), ("max", 10), ("mean", 4.0), ("std", math.sqrt(12.5)), ("skew", 1.2 * math.sqrt(2))]:
            with self.subTest(key=key):
                self.assertAlmostEqual(x[key], want, places=12)

    def test_missing_and_distinct(self):
        for name, missing, share, distinct, distinct_share in [
            ("x", 0, 0.0, 5, 1.0), ("y", 2, 0.4, 3, 1.0), ("c", 1, 0.2, 2, 0.5)]:
            with self.subTest(name=name):
                c = column(self.p, name)
                self.assertEqual((c["missing"], c["distinct"]), (missing, distinct))
                self.assertAlmostEqual(c["missing_share"], share)
                self.assertAlmostEqual(c["distinct_share"], distinct_share)

    def test_top_values_share_of_all_rows(self):
        self.assertEqual(column(self.p, "c")["top"], [{"value": "a", "count": 3, "share": 0.6},
                                                        {"value": "b", "count": 1, "share": 0.2}])

    def test_numeric_std_of_one_value_is_missing(self):
        p = profile_of(pd.DataFrame({"x": [5.0, np.nan, np.nan], "k": [1, 2, 3]}))
        self.assertIsNone(column(p, "x")["std"])  # NaN becomes null

    def test_duplicates_counted(self):
        for df, want in [(pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", "y"]}), 1),
                         (pd.DataFrame({"a": [1, 1, 1], "b": ["x", "x", "x"]}), 2),
                         (pd.DataFrame({"a": [1, 2, 3], "b": ["x", "x", "x"]}), 0)]:
            with self.subTest(df=df.to_dict("list")):
                self.assertEqual(profile_of(df)["duplicate_rows"], want)

    def test_dates_range(self):
        p = profile_of(pd.DataFrame({"d": pd.to_datetime(["2024-03-01", "2024-01-15", None])}))
        d = column(p, "d")
        self.assertEqual((d["kind"], d["min_date"], d["max_date"]), ("datetime", "2024-01-15T00:00:00", "2024-03-01T00:00:00"))

    def test_infinite_values_give_null_statistics(self):
        p = profile_of(pd.DataFrame({"x": [1.0, np.inf, 3.0]}))
        self.assertIsNone(column(p, "x")["mean"])


class TestKinds(unittest.TestCase):
    def test_kinds(self):
        long_text = [f"this is a rather long sentence number {i}" for i in range(10)]
        df = pd.DataFrame({"n": range(10), "f": np.linspace(0, 1, 10), "b": [True, False] * 5,
                           "d": pd.date_range("2024-01-01", periods=10), "c": ["x", "y"] * 5,
                           "t": long_text, "e": [None] * 10, "bo": pd.Series([True, False, None] * 3 + [True], dtype=object)})
        p = profile_of(df)
        for name, kind in [("n", "numeric"), ("f", "numeric"), ("b", "boolean"), ("d", "datetime"), ("c", "categorical"),
                           ("t", "text"), ("e", "empty"), ("bo", "boolean")]:
            with self.subTest(name=name):
                self.assertEqual(column(p, name)["kind"], kind)

    def test_short_distinct_text_is_categorical(self):
        p = profile_of(pd.DataFrame({"t": [f"code {i}" for i in range(10)]}))
        self.assertEqual(column(p, "t")["kind"], "categorical")


class TestAlerts(unittest.TestCase):
    def test_alerts_and_counter_cases(self):
        n = 100
        rng = np.random.default_rng(1)
        df = pd.DataFrame({
            "id": range(n),                                   # unique_id
            "k": ["A"] * n,                                   # constant
            "gone": [None] * n,                               # empty
            "sparse": [1.0] * 70 + [np.nan] * 30,             # high_missing (30%), but constant too
            "few_missing": [1.0, 2.0] * 45 + [np.nan] * 10,   # 10%: no high_missing
            "city": [f"c{i % 60}" for i in range(n)],         # high_cardinality (60 > 50)
            "region": [f"r{i % 5}" for i in range(n)],        # 5: no high_cardinality
            "tail": np.concatenate([np.ones(95), [1000.0] * 5]),  # skewed right
            "even": rng.normal(size=n),                        # not skewed
            "zip_code": [10000 + i % 7 for i in range(n)],    # identifier by name and values
            "balance": [10000 + i % 7 for i in range(n)],     # the same values, a measure's name
        })
        p = profile_of(df)
        for type_, flagged, not_flagged in [
            ("unique_id", "id", "region"), ("constant", "k", "region"), ("empty", "gone", "k"),
            ("high_missing", "sparse", "few_missing"), ("high_cardinality", "city", "region"),
            ("skewed", "tail", "even"), ("identifier", "zip_code", "balance"),
        ]:
            with self.subTest(type=type_):
                found = alerts(p, type_)
                self.assertIn(flagged, found)
                self.assertNotIn(not_flagged, found)

    def test_identifier_not_skewed(self):
        df = pd.DataFrame({"customer_id": np.concatenate([np.ones(95), [1000] * 5]).astype(int), "x": range(100)})
        p = profile_of(df)
        self.assertIn("customer_id", alerts(p, "identifier"))
        self.assertNotIn("customer_id", alerts(p, "skewed"))

    def test_identifier_needs_whole_non_negative_numbers(self):
        for values, flagged in [([1, 2, 3, 3], True), ([1.5, 2.0, 3.0, 3.0], False), ([-1, 2, 3, 3], False)]:
            with self.subTest(values=values):
                p = profile_of(pd.DataFrame({"store_id": values}))
                self.assertEqual("store_id" in alerts(p, "identifier"), flagged)

    def test_high_correlation(self):
        x = np.arange(50, dtype=float)
        p = profile_of(pd.DataFrame({"a": x, "b": 2 * x + 1, "c": np.sin(x)}))
        pairs = alerts(p, "high_correlation")
        self.assertIn(["a", "b"], pairs)
        self.assertFalse(any("c" in pair for pair in pairs))

    def test_duplicates_alert(self):
        self.assertEqual(alerts(profile_of(pd.DataFrame({"a": [1, 1, 2]})), "duplicates"), [None])
        self.assertEqual(alerts(profile_of(pd.DataFrame({"a": [1, 2, 3]})), "duplicates"), [])

    def test_case_variants(self):
        p = profile_of(pd.DataFrame({"city": ["Berlin", "berlin ", "Paris", "Rome", "ROME", "Oslo"]}))
        self.assertIn("city", alerts(p, "case_variants"))
        p = profile_of(pd.DataFrame({"city": ["Berlin", "Paris", "Rome", "Oslo", "Bern", "Nice"]}))
        self.assertNotIn("city", alerts(p, "case_variants"))

    def test_dates_as_text(self):
        p = profile_of(pd.DataFrame({"when": ["2024-01-01", "2024-02-01", "soon", "later"], "x": [1, 2, 3, 4]}))
        self.assertIn("when", alerts(p, "dates_as_text"))
        p = profile_of(pd.DataFrame({"when": ["soon", "later", "never", "now"], "x": [1, 2, 3, 4]}))
        self.assertNotIn("when", alerts(p, "dates_as_text"))

    def test_mixed_types(self):
        p = profile_of(pd.DataFrame({"v": ["1", "2", "3", "x", "y", "4", "5", "6"]}))
        self.assertIn("v", alerts(p, "mixed_types"))
        p = profile_of(pd.DataFrame({"v": ["a", "b", "c", "x", "y", "z", "q", "r"]}))
        self.assertNotIn("v", alerts(p, "mixed_types"))

    def test_loader_findings_become_alerts(self):
        info = {"missing_markers": {"m": [{"value": "n/a", "count": 2}]},
                "ambiguous_dates": {"d": {"kept_text": True, "message": "both orders", "value": 2}}}
        p = profile_of(pd.DataFrame({"m": [1.0, np.nan, 2.0], "d": ["25/12/2024", "12/25/2024", "x"]}), info)
        self.assertIn("m", alerts(p, "missing_markers"))
        self.assertIn("d", alerts(p, "ambiguous_dates"))


class TestHelpers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ns = profile_run(pd.DataFrame({"a": [1, 2]}))

    def test_jsonable(self):
        for x, want in [(np.int64(3), 3), (np.float64(0.5), 0.5), (float("nan"), None), (float("inf"), None),
                        ({1: np.bool_(True)}, {"1": True}), ((1, np.float32(2.0)), [1, 2.0]), ("s", "s")]:
            with self.subTest(x=x):
                got = self.ns["jsonable"](x)
                self.assertEqual(got, want)
                self.assertEqual(type(got), type(want))

    def test_distinct_count(self):
        for values, want in [([1, 2, 2, 3], 3), ([np.iinfo(np.int64).min, np.iinfo(np.int64).max], 2),
                             ([5] * 10, 1), ([1.0, np.nan, 1.0], 1), ([], 0), (np.array([1, 2**40], dtype=np.uint64), 2)]:
            with self.subTest(values=values):
                self.assertEqual(self.ns["distinct_count"](pd.Series(values)), want)

    def test_memory_bytes_as_pandas(self):
        for s in [pd.Series(["a", "bb", "a", None]), pd.Series(["é", "a"]), pd.Series([1, 2, 3])]:
            with self.subTest(s=s.tolist()):
                self.assertEqual(self.ns["memory_bytes"](s), s.memory_usage(index=False, deep=True))

    def test_case_variants_groups(self):
        counts = pd.Series([5, 3, 2, 1], index=["Berlin", "berlin", "Rome", " ROME "])
        self.assertEqual(self.ns["case_variants"](counts), [[("Berlin", 5), ("berlin", 3)], [("Rome", 2), (" ROME ", 1)]])
        self.assertEqual(self.ns["case_variants"](pd.Series([1, 1], index=["a", "b"])), [])

    def test_correlation_blocks_known_answers(self):
        # Moved from eda's TestCorrelationBlocksKnownAnswers: infinities, missing values, nullable integers,
        # blocks smaller than the columns; only x and twice_x at exactly r = 1.
        df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan, 6.0, 7.0], "twice_x": [2, 4, 6, 8, 10, 12, 14],
                           "noisy": [3.0, -1.0, np.inf, 2.5, 0.0, -np.inf, 9.0],
                           "nullable": pd.array([1, None, 3, 1, 2, None, 5], dtype="Int64")})
        names = list(df.columns)
        pairs, strongest = self.ns["correlation_blocks"](df, names, 0.999, block=3)
        self.assertEqual(pairs, [("x", "twice_x", 1.0)])
        clean = df.astype(float).replace([np.inf, -np.inf], np.nan).corr()
        for n in names:
            with self.subTest(column=n):
                self.assertAlmostEqual(strongest[n], clean.loc[n].drop(n).abs().max(), places=12)

    def test_correlation_blocks_as_pandas(self):
        rng = np.random.default_rng(7)
        frame = pd.DataFrame(rng.normal(size=(40, 5)), columns=list("abcde"))
        frame["f"] = frame["a"] * 3 + rng.normal(scale=0.01, size=40)
        frame.iloc[3, 1] = np.nan
        pairs, strongest = self.ns["correlation_blocks"](frame, list(frame.columns), 0.9, block=2)
        want = frame.corr()
        self.assertEqual([(a, b) for a, b, _ in pairs], [("a", "f")])
        self.assertAlmostEqual(pairs[0][2], want.loc["a", "f"], places=10)
        np.testing.assert_allclose([strongest[c] for c in frame.columns],
                                   (want.abs() - np.eye(6)).max().to_numpy(), rtol=1e-9)


class TestNumericSummary(unittest.TestCase):
    """The distributions stage's numeric summary (numeric_stats.py)."""

    @classmethod
    def setUpClass(cls):
        df = pd.DataFrame({"x": [1, 2, 3, 4, 10], "y": [2.0, np.nan, 4.0, np.nan, 6.0], "z": [7, 7, 7, 7, 7]})
        cls.stats = stage.run(("numeric_stats.py", {"numeric_columns": ["x", "y", "z"]}), df=df)["numeric_stats"]

    def test_by_hand(self):
        # x: quartiles by linear interpolation at ranks 1, 2, 3 of 0..4: 2, 3, 4; IQR 2.
        # Excess kurtosis G2 of 1, 2, 3, 4, 10: m2 = 10, m4 = (81 + 16 + 1 + 0 + 1296) / 5 = 278.8,
        # g2 = m4 / m2^2 - 3, G2 = ((n + 1) g2 + 6) (n - 1) / ((n - 2)(n - 3)).
        g2 = 278.8 / 100 - 3
        for column, key, want in [("x", "count", 5), ("x", "missing", 0), ("x", "mean", 4.0), ("x", "25%", 2.0),
                                  ("x", "50%", 3.0), ("x", "75%", 4.0), ("x", "IQR", 2.0), ("x", "std", math.sqrt(12.5)),
                                  ("x", "kurtosis", (6 * g2 + 6) * 4 / 6), ("y", "count", 3), ("y", "missing", 2),
                                  ("y", "std", 2.0), ("y", "skewness", 0.0), ("z", "std", 0.0), ("z", "IQR", 0.0)]:
            with self.subTest(column=column, key=key):
                self.assertAlmostEqual(float(self.stats.loc[column, key]), want, places=12)

    def test_constant_column_has_no_skewness(self):
        self.assertTrue(np.isnan(self.stats.loc["z", "skewness"]) or self.stats.loc["z", "skewness"] == 0)


if __name__ == "__main__":
    unittest.main()


LOAD_FILES = ("load.py", "load_formats.py", "load_exports.py", "load_call.py")
PROFILE_CELLS = PROFILE_FILES[4:]


def loaded(text, name="data.csv"):
    """The namespace after the load stage's cells read a file of text."""
    path = os.path.join(tempfile.mkdtemp(), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return loaded_from(path)


def loaded_from(path):
    """The namespace after the load stage's cells read the file at path."""
    return stage.run(("load_source.py", {"DATA_PATH": path}), *LOAD_FILES)


def profiled(ns):
    """ns after the profile stage's cells ran, and the profile they showed."""
    stage.then(ns, *PROFILE_CELLS)
    shown = [o[ns["PROFILE_MIME"]] for o in ns["shown"] if isinstance(o, dict) and ns["PROFILE_MIME"] in o]
    assert len(shown) == 1, shown
    return ns, shown[0]


class TestTextFactorizedOnce(unittest.TestCase):
    """The loader factorizes each text column once and the profile takes its missing counts,
    frequencies and memory from the codes (issue 15). They must be what pandas gives: value_counts
    in the same order (ties included), isna().sum(), and memory_usage(deep=True) to the byte, with
    non-ASCII text, missing values, a marker turned missing, an empty column, and equal non-ASCII
    strings whose sizes differ (one with its UTF-8 form cached, as C functions that take text leave
    it). Dates are parsed once per distinct text and placed by the codes: the same as to_datetime
    of the column."""

    @staticmethod
    def profiled_text():
        cities = ["Oslo", "Paris", "Lima", "", "N/A", "Paris", "Oslo", "Québec", "Lima", "São Paulo"]
        names = ["Zoë", "日本", "Ann", "🙂 smile", "", "Zoë", "Bob", "日本", "Ann", "Łukasz"]
        text = "id,city,name,empty,amount\n" + "".join(
            f"{i},{cities[i % len(cities)]},{names[(i * 7) % len(names)]},,{i % 13}.5\n" for i in range(97))
        return profiled(loaded(text, "text.csv"))

    @classmethod
    def setUpClass(cls):
        cls.ns, cls.p = cls.profiled_text()
        cls.released = not cls.ns["FACTORIZED"]

    def test_missing_counts_markers(self):
        self.assertEqual(column(self.p, "city")["missing"], 20, "10 empty, 10 N/A")
        self.assertEqual(len(self.p["load"]["missing_markers"]["city"]), 1)

    def test_counts_and_memory_from_the_codes_are_pandas(self):
        ns, df = self.ns, self.ns["df"]
        self.assertTrue(self.released, "the profile let the codes go")
        text = list(df.columns[df.dtypes == object])
        self.assertEqual(text, ["city", "name"])
        for c in text:
            ns["factorized"](df[c])  # kept again, to test what reads them
        for c in text:
            with self.subTest(column=c):
                s, ref = df[c], df[c].value_counts()
                mine = ns["value_counts"].get(c)
                self.assertIsNotNone(ns["kept_factorization"](s))
                self.assertEqual(ns["missing_count"](s), int(s.isna().sum()))
                self.assertIsNotNone(mine)
                self.assertTrue(mine.equals(ref) and list(mine.index) == list(ref.index), f"{mine} != {ref}")
                self.assertEqual((mine.name, mine.index.name, mine.index.dtype), (ref.name, ref.index.name, ref.index.dtype))
        self.assertTrue(ns["memory"].equals(df.memory_usage(deep=True)))

    def test_memory_of_equal_strings_of_different_sizes(self):
        ns = self.ns
        as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
        as_utf8.argtypes, as_utf8.restype = [ctypes.py_object], ctypes.c_char_p
        probe = pd.Series(["".join(["Zo", "ë", str(i % 2)]) for i in range(40)] + [None, "plain"] * 3, name="probe")
        for v in probe[:40:3]:
            as_utf8(v)
        self.assertEqual(len({v.__sizeof__() for v in probe[:40] if v == "Zoë0"}), 2, "sizes differ")
        ns["factorized"](probe)
        self.assertEqual(ns["memory_bytes"](probe), probe.memory_usage(index=False, deep=True))

    def test_dates_placed_by_the_codes(self):
        ns = self.ns
        texts = {"%Y-%m-%d": ["2024-01-31", None, "2024-02-30", "2023-12-01", "2024-01-31", "soon"] * 20,
                 "%Y-%m-%dT%H:%M:%S%z": ["2024-03-01T10:00:00+01:00", "2024-03-01T10:00:00Z", None, "2024-03-01T09:00:00-05:30"] * 30,
                 "%d/%m/%Y %H:%M": [f"{d % 28 + 1:02d}/01/2024 {d % 24:02d}:{d % 60:02d}" for d in range(300)]}
        for i, (fmt, values) in enumerate(texts.items()):
            with self.subTest(fmt=fmt):
                s = pd.Series(values, name=f"dates{i}", dtype=object)
                ns["factorized"](s)
                mine, ref = ns["column_dates"](s, fmt), ns["to_dates"](s, fmt)
                self.assertTrue(mine.equals(ref), f"{mine} != {ref}")
                self.assertEqual(mine.dtype, ref.dtype)
                self.assertEqual(mine.isna().sum(), ref.isna().sum())

    def test_integers_counted_by_slot_as_nunique(self):
        ints = {"small": [3, -2, 3, 7, -2, 0], "one": [5], "wide": [0, 10**12, 3, 3],
                "uint": np.array([2**63 + 5, 2**63 + 1, 2**63 + 5], dtype=np.uint64),
                "int8": np.arange(-128, 128, dtype=np.int8).repeat(2)[::3]}
        for name, v in ints.items():
            with self.subTest(ints=name):
                self.assertEqual(self.ns["distinct_count"](pd.Series(v)), pd.Series(v).nunique())

    def test_replaced_column_factorized_afresh(self):
        ns = self.profiled_text()[0]
        df = ns["df"]
        ns["factorized"](df["name"])  # kept again
        df["name"] = df["name"].str.upper()  # a replaced column is not taken for the one the codes were made from
        self.assertIsNone(ns["kept_factorization"](df["name"]))
        self.assertTrue(ns["frequencies"](df["name"]).equals(df["name"].value_counts()))


class TestProfileAfterTextChangedInPlace(unittest.TestCase):
    """A cell between the load and the profile that changes a text column's values in place
    (df.loc[rows, column] = value keeps the same array, so the weak reference cannot tell) must not
    leave the profile counting the loader's codes: its missing counts, top values and memory are
    pandas' on the changed frame. A replaced column and an untouched one too."""

    def test_profile_is_pandas_on_the_edited_frame(self):
        text = "city,kind,note\n" + "".join(
            f"{['Oslo', 'Paris', 'Lima', ''][i % 4]},{['a', 'b'][i % 2]},{['x', ''][i % 2]}\n" for i in range(60))
        ns = loaded(text, "cities.csv")
        df = ns["df"]
        kept_before = set(ns["FACTORIZED"])
        city = df["city"].to_numpy()
        df.loc[df.index[:10], "city"] = "Zürich"  # in place: the same array
        df.loc[df.index[3], "note"] = "filled"  # a missing value filled in place
        df["kind"] = df["kind"].str.upper()  # replaced
        same_array = df["city"].to_numpy() is city or np.shares_memory(df["city"].to_numpy(), city)
        self.assertEqual((sorted(kept_before), same_array), (["city", "kind", "note"], True),
                         "the edit did not change kept columns in place")
        ns, p = profiled(ns)
        self.assertTrue(ns["memory"].equals(df.memory_usage(deep=True)), "memory differs from df.memory_usage(deep=True)")
        for name in ["city", "kind", "note"]:
            with self.subTest(column=name):
                c = column(p, name)
                self.assertEqual([[t["value"], t["count"]] for t in c["top"]], [[str(v), int(n)] for v, n in df[name].value_counts().items()])
                self.assertEqual(c["missing"], int(df[name].isna().sum()))


OUT_OF_CORE_PROFILE = ("profile_helpers.py", "sketch_parts.py", "ooc_profile.py", "profile_overview.py",
                       "ooc_profile_summary.py", "profile_alerts.py", "profile_json.py", "profile_show.py")


def profiled_out_of_core(path, **sizes):
    """The profile the out-of-core load and profile stages' cells compute of the file at path,
    read with sizes (ooc_load.py's CHUNK_ROWS, SAMPLE_ROWS, PLAN_BYTES)."""
    ns = stage.run(("load_source.py", {"DATA_PATH": path}), "load.py", "load_formats.py", "load_exports.py",
                   ("ooc_load.py", sizes), *OUT_OF_CORE_PROFILE)
    shown = [o[ns["PROFILE_MIME"]] for o in ns["shown"] if isinstance(o, dict) and ns["PROFILE_MIME"] in o]
    assert len(shown) == 1, shown
    return shown[0]


class TestRaggedRowsCounted(unittest.TestCase):
    """Rows with more fields than the header are skipped out of core as the loader skips them, and
    counted over the whole file, not only in the first lines that decide the plan: the out-of-core
    note names the same rows as the in-memory one. (They were skipped silently past the plan's
    lines.)"""

    def test_in_memory_and_out_of_core(self):
        ragged = {3, 4_000, 9_000}  # data rows; line = row + 1
        text = "id,region,amount\n" + "".join(
            f"{i},north,{i}.5,extra\n" if i in ragged else f"{i},{['north', 'south', 'east'][i % 3]},{i % 97}.25\n"
            for i in range(1, 10_001))
        ns = loaded(text, "ragged.csv")
        whole = profiled(ns)[1]
        # The plan reads the first 4 KiB (about 200 lines): only the first ragged row is in it;
        # chunks of 1,500 rows put the others in later chunks.
        out_of_core = profiled_out_of_core(ns["DATA_PATH"], CHUNK_ROWS=1_500, SAMPLE_ROWS=500, PLAN_BYTES=4 << 10)
        want = "3 ragged row(s) with more fields than the header (3) were skipped: line(s) 4, 4001, 9001"
        for how, p in [("in memory", whole), ("out of core", out_of_core)]:
            with self.subTest(how=how):
                self.assertIn(want, p["load"]["notes"])
                self.assertEqual(p["rows"], 9_997)


class TestReportWorkbook(unittest.TestCase):
    """A report-like workbook, through the load and profile cells (issue #35): an empty cover
    sheet, then a sheet whose table starts at B4 below a title, with a units line under the
    header, a footer note and dates written as Excel day numbers."""

    def test_table_found_and_described(self):
        wb = openpyxl.Workbook()
        wb.active.title = "cover"
        ws = wb.create_sheet("sales")
        ws["B1"] = "Sales by region, 2024"
        ws["B2"] = "Prepared by finance"
        rows = [["region", "order_date", "revenue"], [None, None, "EUR"]]
        rows += [[f"r{i % 7}", 45292 + i, 100.5 * i] for i in range(60)] + [["Source: ledger export", None, None]]
        for r, row in enumerate(rows, start=4):
            for c, v in enumerate(row, start=2):
                ws.cell(r, c, v)
        path = os.path.join(tempfile.mkdtemp(), "report.xlsx")
        wb.save(path)
        p = profiled(loaded_from(path))[1]
        self.assertEqual((p["rows"], [c["name"] for c in p["column_info"]]), (60, ["region", "order_date", "revenue EUR"]),
                         p["load"]["notes"])
        for note in ["the first sheet, 'cover', is empty; 'sales' (sheet 2) was read instead",
                     "the table starts at row 4, column 2 of the sheet; 2 title line(s) above it were skipped: "
                     "'Sales by region, 2024', 'Prepared by finance'",
                     "which were left out: 'Source: ledger export'"]:
            with self.subTest(note=note):
                self.assertTrue(any(note in n for n in p["load"]["notes"]), p["load"]["notes"])
        self.assertEqual((column(p, "revenue EUR")["kind"], column(p, "order_date")["kind"]), ("numeric", "numeric"))
        self.assertIn("order_date", alerts(p, "excel_serial_dates"))
        self.assertNotIn("revenue EUR", alerts(p, "excel_serial_dates"))


def has_note(p, text):
    return any(text in n for n in p["load"]["notes"])


def thousands(n):
    return f"{n:,}"


def sales_rows(n):
    """eda's salesRows: n CSV rows of region, units and revenue (Go's PCG 1, 2), and the sums of
    units and revenue."""
    r = gorand.PCG(1, 2)
    lines, units, revenue = [], 0, 0.0
    for _ in range(n):
        u, cents = 1 + r.intn(20), 100 + r.intn(100_000)
        units, revenue = units + u, revenue + cents / 100
        lines.append(f"{['North', 'South', 'East', 'West'][r.intn(4)]},{u},{cents // 100}.{cents % 100:02d}\n")
    return "".join(lines), units, round(revenue * 100) / 100


def comma_number(x):
    """x as Python's f"{x:,.10g}" writes a number of under ten significant digits: 100,234.5."""
    whole, _, fraction = repr(x).partition(".")
    assert "e" not in whole, x
    return f"{int(whole):,}" + ("." + fraction if fraction != "0" else "")


class TestTotalsRow(unittest.TestCase):
    """A last row labelled like a total whose numbers are the sums of the rows above is left out,
    with a note; one whose numbers are not stays, and the note says why. CSV and Excel."""

    @classmethod
    def setUpClass(cls):
        rows, cls.units, cls.revenue = sales_rows(200)
        cls.sums = loaded("region,units,revenue\n" + rows + f"Total,,{repr(cls.revenue).removesuffix('.0')}\n", "sums.csv")
        cls.wrong = loaded("region,units,revenue\n" + rows + f"Total,{cls.units},12345\n", "wrong.csv")

    def regions(self, p, rows, distinct):
        self.assertEqual((p["rows"], column(p, "region")["distinct"]), (rows, distinct), column(p, "region")["top"])

    def test_sums_left_out(self):
        p = profiled(self.sums)[1]
        self.regions(p, 200, 4)
        note = (f"the last row ('Total' in 'region') holds the column totals ('revenue' {comma_number(self.revenue)}: "
                "each the sum of the rows above); it was left out of the table, which has 200 rows")
        self.assertTrue(has_note(p, note), p["load"]["notes"])
        self.assertLess(column(p, "revenue")["max"], self.revenue / 10, "the total is still a row")

    def test_not_the_sums(self):
        p = profiled(self.wrong)[1]
        self.regions(p, 201, 5)
        note = ("the last row ('Total' in 'region') is labelled like a totals row but was kept as data: its 'revenue' "
                f"(12,345) is not the sum of the rows above ({comma_number(self.revenue)})")
        self.assertTrue(has_note(p, note), p["load"]["notes"])

    def test_xlsx(self):
        frame = pd.read_csv(self.sums["DATA_PATH"], dtype={"region": str}).iloc[:-1]
        frame["zip"] = ["02134", "10001"] * (len(frame) // 2)
        total = pd.DataFrame({"region": ["Grand total:"], "units": [frame["units"].sum()], "revenue": [frame["revenue"].sum()]})
        path = os.path.join(tempfile.mkdtemp(), "sums.xlsx")
        pd.concat([frame, total]).to_excel(path, index=False)
        p = profiled(loaded_from(path))[1]
        self.regions(p, 200, 4)
        self.assertTrue(has_note(p, f"the last row ('Grand total:' in 'region') holds the column totals ('units' {thousands(self.units)}, 'revenue'"),
                        p["load"]["notes"])
        self.assertEqual(column(p, "zip")["kind"], "categorical")


def dotted(n):
    """n with dots between groups of three digits, as German exports write it: 1.234.567."""
    return thousands(n).replace(",", ".")


class TestEuropeanDatesAndNumbers(unittest.TestCase):
    """In a file with decimal commas and thousands dots, dates stay dates and only valid groupings
    of three digits are numbers."""

    def test_dates_numbers_and_the_totals_row(self):
        r = gorand.PCG(7, 7)
        lines = ["Datum;Betrag;Menge;Einwohner;Version\n"]
        cents = menge = einwohner = 0
        for i in range(300):
            c = 100 + r.intn(500_000_00)
            people = 1_000_000 + r.intn(9_000_000)
            m = 1 + r.intn(20)
            cents, menge, einwohner = cents + c, menge + m, einwohner + people
            lines.append(f"{1 + i % 28:02d}.{1 + i % 12:02d}.2024;{dotted(c // 100)},{c % 100:02d};{m};"
                         f"{dotted(people)};{1 + i % 3}.{i % 10}.{1 + i % 7}\n")
        lines.append(f"Summe;{dotted(cents // 100)},{cents % 100:02d};{menge};{dotted(einwohner)};\n")
        ns, p = profiled(loaded("".join(lines), "de.csv"))
        kinds = {c["name"]: c["kind"] for c in p["column_info"]}
        self.assertEqual(kinds, {"Datum": "datetime", "Betrag": "numeric", "Menge": "numeric", "Einwohner": "numeric",
                                 "Version": "categorical"})
        datum = column(p, "Datum")
        self.assertEqual((datum["min_date"], datum["max_date"]), ("2024-01-01T00:00:00", "2024-12-28T00:00:00"))
        self.assertEqual(p["rows"], 300, "the Summe row left out")
        df = ns["df"]
        self.assertLessEqual(abs(float(df["Betrag"].sum()) - cents / 100), 1e-9 * max(1, cents / 100))
        self.assertEqual((float(df["Menge"].sum()), float(df["Einwohner"].sum())), (menge, einwohner))
        self.assertTrue(has_note(p, "the last row ('Summe' in 'Datum') holds the column totals"), p["load"]["notes"])
        self.assertIn("'.' or spaces group thousands", p["load"]["converted_numbers"]["Einwohner"]["rule"])


MONTH_FIRST_PROOFS = [(12, 25), (10, 13), (11, 30), (1, 31), (2, 14), (3, 17), (7, 22), (12, 31)]
DAY_FIRST_PROOFS = [(25, 12), (13, 10), (30, 11), (31, 1), (14, 2), (17, 3), (22, 7), (31, 12)]


def dates_csv(n, sep, proofs):
    """eda's datesCSV: n rows of a date column (two numbers then the year: %02d/%02d/2024), every
    one ambiguous (both numbers at most 12) but the proofs, placed evenly among them, and a value
    column (Go's PCG 3, 4); and the dates as written."""
    r = gorand.PCG(3, 4)
    lines, dates = ["date,value\n"], []
    for i in range(n):
        a, c = 1 + r.intn(12), 1 + r.intn(12)
        if proofs and i % (n // len(proofs)) == n // len(proofs) // 2 and i // (n // len(proofs)) < len(proofs):
            a, c = proofs[i // (n // len(proofs))]
        date = f"{a:02d}{sep}{c:02d}{sep}2024"
        dates.append(date)
        lines.append(f"{date},{r.intn(1000)}\n")
    return "".join(lines), dates


class TestDateOrder(unittest.TestCase):
    """The order of day and month is the one the values prove, over every value; proofs of both
    keep the column text; no proof says so."""

    def profile(self, text, name):
        return profiled(loaded(text, name))

    def assert_note(self, p, text):
        self.assertTrue(has_note(p, text), p["load"]["notes"])

    def assert_dates(self, ns, dates, month_first):
        """df's dates are the text read month first or day first."""
        got = ns["df"]["date"].dt.strftime("%Y-%m-%d").fillna("missing").tolist()
        want = []
        for d in dates:
            a, b = (int(x) for x in d.replace("-", "/").split("/")[:2])
            month, day = (a, b) if month_first else (b, a)
            want.append(f"2024-{month:02d}-{day:02d}")
        self.assertEqual(got, want)

    def test_month_first(self):
        text, dates = dates_csv(5000, "/", MONTH_FIRST_PROOFS)
        ns, p = self.profile(text, "us.csv")
        self.assertEqual((column(p, "date")["kind"], column(p, "date")["missing"]), ("datetime", 0))
        self.assert_note(p, "the dates in 'date' are month first (%m/%d/%Y): 8 value(s) have a second number above 12, "
                            "such as '12/25/2024', and none a first number above 12")
        self.assert_dates(ns, dates, True)
        self.assertNotIn("date", alerts(p, "ambiguous_dates"), "the order is proven")

    def test_day_first(self):
        text, dates = dates_csv(5000, "/", DAY_FIRST_PROOFS)
        ns, p = self.profile(text, "eu.csv")
        self.assert_note(p, "the dates in 'date' are day first (%d/%m/%Y): 8 value(s) have a first number above 12, "
                            "such as '25/12/2024', and none a second number above 12")
        self.assert_dates(ns, dates, False)

    def test_both_orders(self):
        p = self.profile(dates_csv(5000, "/", MONTH_FIRST_PROOFS + DAY_FIRST_PROOFS)[0], "mixed.csv")[1]
        self.assertEqual(column(p, "date")["kind"], "categorical", "kept as text")
        want = ("8 value(s) have a first number above 12 (day first, such as '25/12/2024') and 8 a second number "
                "above 12 (month first, such as '12/25/2024')")
        self.assertTrue(any(a["type"] == "ambiguous_dates" and a.get("column") == "date" and want in a["message"]
                            for a in p["alerts"]), p["alerts"])
        for a in p["alerts"]:
            self.assertFalse("100%" in a["message"] or a["type"] == "dates_as_text", f"{a}: the values do not all parse")

    def test_no_proof(self):
        text, dates = dates_csv(3000, "-", [])
        ns, p = self.profile(text, "none.csv")
        self.assert_note(p, "the dates in 'date' could be day/month or month/day: no value has a number above 12 in "
                            "either place; they were read day first (%d-%m-%Y), as most of the world writes dates")
        self.assertIn("date", alerts(p, "ambiguous_dates"))
        self.assert_dates(ns, dates, False)

    def test_proof_in_another_column(self):
        text = "start,end\n" + "".join(f"{1 + i % 12}/1/2024,{1 + i % 12}/{20 + i % 8}/2024\n" for i in range(60))
        p = self.profile(text, "both.csv")[1]
        self.assert_note(p, "the dates in 'start' could be day/month or month/day (no number above 12), so they were "
                            "read month first (%m/%d/%Y), as 'end' proves for this file")
        self.assertEqual(column(p, "start")["max_date"], "2024-12-01T00:00:00", "12/1/2024 month first")

    def test_mostly_dates(self):
        text = "when,n\n" + "".join(f"{'pending' if i >= 4400 else f'2024-{1 + i % 12:02d}-{1 + i % 28:02d}'},{i}\n"
                                    for i in range(5000))
        p = self.profile(text, "mostly.csv")[1]
        found = [a for a in p["alerts"] if a["type"] == "dates_as_text" and a.get("column") == "when"]
        self.assertEqual(len(found), 1, p["alerts"])
        self.assertAlmostEqual(found[0]["value"], 0.88, delta=0.02, msg="about 88% of the values (4,400 of 5,000)")


class TestPreamble(unittest.TestCase):
    """Lines above the header (a title, comments, a blank line; an Excel title padded with
    delimiters) are skipped and quoted in the notes, in memory and out of core; a header that
    starts with # is a header."""

    SALES = ["region", "units", "revenue"]

    @staticmethod
    def text(preamble, header="region,units,revenue\n"):
        return preamble + header + sales_rows(300)[0]

    def check(self, p, names, note):
        self.assertEqual((p["rows"], [c["name"] for c in p["column_info"]]), (300, names))
        self.assertFalse([n for n in p["load"]["notes"] if "ragged" in n])
        if note:
            self.assertTrue(has_note(p, note), p["load"]["notes"])
        self.assertEqual((column(p, "units")["kind"], column(p, "revenue")["kind"]), ("numeric", "numeric"))

    def test_skipped_and_quoted(self):
        for preamble, note in [
            ("Report: Sales by region\n# generated by ERP 9.1 on 2024-05-01\n\n",
             "the file starts with 2 line(s) before the header (a title or comments, not data), which were skipped: "
             "'Report: Sales by region', '# generated by ERP 9.1 on 2024-05-01'"),
            ("Sales by region,,\n,,\n",
             "the file starts with 2 line(s) before the header (a title or comments, not data), which were skipped: "
             "'Sales by region'"),
        ]:
            with self.subTest(preamble=preamble):
                self.check(profiled(loaded(self.text(preamble)))[1], self.SALES, note)

    def test_headers_that_are_headers(self):
        for preamble, header, names in [
            ("", "#,units,revenue\n", ["#", "units", "revenue"]),
            ("", "region,,\n", ["region", "Unnamed: 1", "Unnamed: 2"]),  # one name; the row below it is data
            ("Sales by region and year\n", "region,2023,2024\n", ["region", "2023", "2024"]),  # numbers, below a title
        ]:
            with self.subTest(header=header):
                p = profiled(loaded(self.text(preamble, header)))[1]
                self.assertEqual((p["rows"], [c["name"] for c in p["column_info"]]), (300, names))
                self.assertEqual(any("before the header" in n for n in p["load"]["notes"]), preamble != "", p["load"]["notes"])

    def test_out_of_core(self):
        ns = loaded(self.text("Report: Sales by region\n# generated by ERP 9.1 on 2024-05-01\n\n"), "preamble.csv")
        p = profiled_out_of_core(ns["DATA_PATH"], CHUNK_ROWS=70, SAMPLE_ROWS=100)
        self.check(p, self.SALES, "which were skipped: 'Report: Sales by region'")
