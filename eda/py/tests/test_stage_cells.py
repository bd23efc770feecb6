"""The correlations, time-series, over-time and by-category cells rank, bucket and summarise in O(n)
(factorize, integer period numbers, one pass per group) instead of pandas' rank, resample and
groupby, which sort. Each is pinned to give exactly what those give, on small frames with the
awkward cases: ties, missing values, ±0, ±inf, an all-missing column, one row, empty periods,
dates before 1970, weeks, hours, dates with a time zone (UTC, daylight saving, a half-hour
offset), integer and float values, a missing category. The cells write no warning."""
import io
import unittest
import warnings
from unittest import mock

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import cbook
from matplotlib import pyplot

import stage

matplotlib.use("Agg")


def run_cells(df, *files):
    """The namespace after the chart helpers and files ran on df, as a notebook runs them; a
    warning any of them writes fails the test. Their charts are drawn, not shown (rendering them
    is the end-to-end runs' part, and the slow one)."""
    with warnings.catch_warnings(record=True) as caught, mock.patch.object(pyplot, "show", lambda *args, **kwargs: None):
        namespace = stage.run("chart_helpers.py", *files, df=df)
        pyplot.close("all")
    if caught:
        raise AssertionError(f"the cells wrote warnings: {[str(w.message) for w in caught]}")
    return namespace


def assert_same_frame(test, got, want):
    """The same frame, exactly: values, dtypes, index and column names."""
    test.assertEqual(got.shape, want.shape)
    test.assertTrue(got.equals(want), f"\n{got}\n!=\n{want}")
    test.assertEqual(list(got.dtypes), list(want.dtypes))
    test.assertTrue(got.index.equals(want.index), f"{got.index} != {want.index}")
    test.assertEqual(list(got.columns), list(want.columns))
    test.assertEqual(got.columns.name, want.columns.name)
    test.assertEqual(got.index.name, want.index.name)


SPEARMAN_FRAMES = {
    "ties and missing": lambda: pd.DataFrame({
        "ties": [3, 1, 3, np.nan, 2, 3, 1, 2, np.nan, 0],
        "floats": [0.5, -0.0, 0.0, np.inf, -np.inf, 0.5, np.nan, 1e300, -2.5, 0.5],
        "ints": np.arange(10) % 3,
        "empty": [np.nan] * 10,
        "nullable": pd.array([1, None, 2, 2, None, 5, 1, 1, 3, 4], dtype="Int64"),
        "flags": [True, False, False, True, True, False, True, True, False, True],
    }),
    "one row": lambda: pd.DataFrame({"a": [1.5], "b": [2]}),
    "distinct": lambda: pd.DataFrame({"a": np.random.default_rng(1).normal(size=5000),
                                      "b": np.random.default_rng(2).integers(0, 40, 5000)}),
}


class TestSpearman(unittest.TestCase):
    def test_ranks_and_matrix_as_pandas(self):
        for name, frame in SPEARMAN_FRAMES.items():
            with self.subTest(name):
                df = frame()
                cols = list(df.columns)
                ns = run_cells(df, ("correlation.py", {"correlation_columns": cols}))
                want_ranks = df[cols].rank()
                for c in cols:
                    np.testing.assert_array_equal(ns["average_ranks"](df[c]), want_ranks[c].to_numpy(dtype=float, na_value=np.nan))
                assert_same_frame(self, ns["spearman"], want_ranks.corr(method="pearson"))


# Dates, then values (v) and groups (g) row by row; the frequency.
DATE_FRAMES = {
    "months with a gap": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2023-01-31 23:59", "2023-01-01", None, "2023-04-15", "2023-01-15", "2023-04-01"], format="ISO8601"),
        "v": [1.5, np.nan, 2.0, 4.25, 0.1, 0.2], "g": ["a", "b", "a", None, "c", "a"]}), "MS"),
    "years before 1970": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["1950-06-01", "1969-12-31 23:00", "1972-01-01", "1950-01-01"], format="ISO8601"),
        "v": [1, 2, 3, 4], "g": ["x", "x", "y", "z"]}), "YS"),
    "weeks": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2024-01-01", "2024-01-07 23:59", "2024-01-08", "2023-12-31", "1969-12-29", "1970-01-01",
                             "2024-02-20"], format="ISO8601"),
        "v": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0], "g": ["a", "b", "a", "b", "a", "c", "d"]}), "W-MON"),
    "days": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2024-03-01 10:00", "2024-03-01 00:00", "2024-03-04", None], format="ISO8601"),
        "v": [1, 2, 3, 4], "g": ["a", "a", "b", "b"]}), "D"),
    "hours, UTC": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2024-03-01 10:59:59", "2024-03-01 10:00", "2024-03-01 13:30", "2024-03-01 09:00"],
                            format="ISO8601", utc=True),
        "v": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "a"]}), "h"),
    "months, UTC": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2024-03-31 23:30", "2024-01-01", "2024-03-01"], format="ISO8601", utc=True),
        "v": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]}), "MS"),
    "hours across daylight saving, Paris": (lambda: (lambda d: d.assign(
        v=np.arange(len(d)) * 0.5, g=np.where(np.arange(len(d)) % 3 == 0, "a", "b")))(pd.DataFrame({
            "d": pd.date_range("2024-10-26 22:00", "2024-10-27 05:00", freq="17min", tz="UTC").tz_convert("Europe/Paris")})), "h"),
    "hours, India (+05:30)": (lambda: (lambda d: d.assign(v=np.arange(len(d)) * 1.5, g="a"))(pd.DataFrame({
        "d": pd.date_range("2024-01-01", "2024-01-01 06:00", freq="23min", tz="UTC").tz_convert("Asia/Kolkata")})), "h"),
    "days across daylight saving, Paris": (lambda: (lambda d: d.assign(v=np.arange(len(d)), g="a"))(pd.DataFrame({
        "d": pd.date_range("2024-03-29", "2024-04-02", freq="97min", tz="UTC").tz_convert("Europe/Paris")})), "D"),
    "one category, all missing groups": (lambda: pd.DataFrame({
        "d": pd.to_datetime(["2024-01-05", "2024-03-01"], format="ISO8601"), "v": [1.0, 2.0], "g": [None, None]}), "MS"),
}


class TestPeriods(unittest.TestCase):
    def test_per_period_and_per_line_as_resample_and_groupby(self):
        for name, (frame, freq) in DATE_FRAMES.items():
            with self.subTest(name):
                df = frame()
                ns = run_cells(df, ("time_series.py", {"date_column": "d", "value_column": "v", "FREQUENCY": freq}),
                               ("time_series_chart.py", {"PERIOD_WORD": "period"}),
                               ("viz_time.py", {"trend_date": "d", "trend_value": "v", "trend_group": "g",
                                                "TREND_FREQUENCY": freq, "TREND_LINES": 2, "TREND_WORD": "period"}))
                dated = ns["dated"]
                dates = pd.DatetimeIndex(df.loc[dated, "d"])
                want = pd.DataFrame({"rows": pd.Series(1, index=dates).resample(freq, closed="left", label="left").size()})
                want["sum of v"] = pd.Series(df.loc[dated, "v"].to_numpy(), index=dates).resample(freq, closed="left", label="left").sum()
                want.index.name = "period starting"
                assert_same_frame(self, ns["per_period"], want)

                group, largest = ns["group"], ns["largest"]
                lines = pd.DataFrame({"date": df.loc[dated, "d"], "value": df.loc[dated, "v"],
                                      "line": group.astype(object).where(group.isin(largest), "other")})
                want_trend = lines.groupby([pd.Grouper(key="date", freq=freq, closed="left", label="left"), "line"])["value"] \
                    .sum().unstack(fill_value=0)
                want_trend = want_trend[largest + (["other"] if "other" in want_trend.columns else [])]
                want_trend.index.name = "period starting"
                assert_same_frame(self, ns["trend"], want_trend)


class TestHexbinPixels(unittest.TestCase):
    def test_as_ax_hexbin(self):
        """hexbin_rows draws what ax.hexbin draws: the same hexagons, counts, limits and PNG bytes."""
        H = stage.run("chart_helpers.py")
        plt = H["plt"]

        def drawn(draw, xs, ys):
            fig, ax = plt.subplots()
            bins = draw(ax, xs, ys)
            fig.colorbar(bins, ax=ax)
            png = io.BytesIO()
            fig.savefig(png, format="png")
            plt.close(fig)
            return bins, (ax.get_xlim(), ax.get_ylim(), png.getvalue())

        rng = np.random.default_rng(7)
        x = rng.normal(size=200_000)
        for name, xs, ys in [("more rows than one block", x, 0.6 * x + rng.normal(size=len(x))),
                             ("ties on hexagon edges", rng.integers(1, 12, 5000).astype(float), rng.integers(0, 40, 5000) * 0.25),
                             ("a constant column: the range is widened", np.full(100, 3.0), rng.normal(size=100)),
                             ("one point", np.array([1.0]), np.array([2.0]))]:
            with self.subTest(name):
                theirs, their_figure = drawn(lambda ax, a, b: ax.hexbin(a, b, gridsize=40, mincnt=1, cmap="viridis", linewidths=0), xs, ys)
                ours, our_figure = drawn(lambda ax, a, b: H["hexbin_rows"](ax, a, b, gridsize=40, cmap="viridis", linewidths=0), xs, ys)
                np.testing.assert_array_equal(ours.get_offsets(), theirs.get_offsets())
                np.testing.assert_array_equal(ours.get_array(), theirs.get_array())
                self.assertEqual(our_figure, their_figure)


class TestBoxStatsSamples(unittest.TestCase):
    def test_as_boxplot_stats(self):
        H = stage.run("chart_helpers.py")
        rng = np.random.default_rng(3)
        samples = [rng.lognormal(size=10_001), rng.integers(0, 5, 1000).astype(float), np.array([2.5]), np.full(7, 1.0),
                   np.array([1.0, 2.0, 3.0, 4.0, 100.0, -50.0]), np.concatenate([np.zeros(90), np.arange(10.0)])]
        for x in samples:
            with self.subTest(n=len(x)):
                got, want = H["box_stats"](x), cbook.boxplot_stats(x, whis=1.5)[0]
                for key in ["med", "q1", "q3", "whislo", "whishi"]:
                    self.assertEqual(got[key], want[key], key)


GROUP_FRAMES = {
    "missing, infinite, a group without values": lambda: pd.DataFrame({
        "g": ["b", "a", "b", None, "c", "a", "b", "c"],
        "x": [1.0, np.nan, 2.5, 4.0, np.inf, 3.0, 0.1, -np.inf], "n": [1, 2, 3, 4, 5, 6, 8, 9],
        "empty_in_c": [1.0, 2.0, 3.0, 4.0, np.nan, 5.0, 6.0, np.nan]}),
    "long tails: values beyond the whiskers in every group": lambda: pd.DataFrame({
        "g": np.random.default_rng(5).choice(["p", "q", "r", None], 3000),
        "x": np.random.default_rng(6).lognormal(size=3000), "n": np.random.default_rng(7).standard_t(2, size=3000).round(1),
        "empty_in_c": np.random.default_rng(8).normal(size=3000)}),
}


class TestByCategory(unittest.TestCase):
    def test_table_as_groupby_and_boxplot_stats(self):
        """Each group's median as groupby's median gives it; its finite values and those beyond the
        whiskers as cbook.boxplot_stats counts them (its fliers)."""
        def finite(s):
            return s[np.isfinite(s.astype(float))]

        for name, frame in GROUP_FRAMES.items():
            with self.subTest(name):
                df = frame()
                ns = run_cells(df, ("viz_groups.py", {"group_column": "g", "group_values": ["x", "n", "empty_in_c"]}))
                groups, order = ns["groups"], ns["group_order"]
                want = pd.DataFrame(index=pd.Index(order, name="g"))
                want.insert(0, "rows", ns["group_sizes"])
                for column in ns["group_values"]:
                    want["values " + column] = groups[column].agg(lambda s: len(finite(s.dropna()))).reindex(order).astype(int)
                    want["median " + column] = groups[column].median().reindex(order).astype(float)
                    want["beyond whiskers " + column] = groups[column].agg(
                        lambda s: len(cbook.boxplot_stats(finite(s.dropna()).to_numpy(float))[0]["fliers"]) if len(finite(s.dropna())) else 0
                    ).reindex(order).astype(int)
                assert_same_frame(self, ns["group_table"], want)
                if len(df) >= 100:
                    self.assertGreater(want.filter(like="beyond").to_numpy().sum(), 0)


if __name__ == "__main__":
    unittest.main()
