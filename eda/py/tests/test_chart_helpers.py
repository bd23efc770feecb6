"""The chart helpers (chart_helpers.py) against what pandas and matplotlib compute, at the edges:
constant columns, int64 extremes, booleans, missing dates (NaT), time zones, empty input."""
import unittest

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import cbook

import stage

matplotlib.use("Agg")
H = stage.run("chart_helpers.py")


class TestLabels(unittest.TestCase):
    def test_chart_label(self):
        for value, width, want in [("short", 40, "short"), ("x" * 45, 40, "x" * 39 + "…"), ("$5 and $6", 40, r"\$5 and \$6"),
                                   (12.5, 40, "12.5"), (None, 40, "None"), (pd.NaT, 40, "NaT"), (True, 3, "True"[:2] + "…")]:
            with self.subTest(value=value):
                self.assertEqual(H["chart_label"](value, width), want)

    def test_chart_grid(self):
        for n, ncols, shape, visible in [(1, 3, (1, 1), 1), (4, 3, (2, 3), 4), (6, 3, (2, 3), 6), (5, 2, (3, 2), 5)]:
            with self.subTest(n=n, ncols=ncols):
                fig, axes = H["chart_grid"](n, ncols=ncols)
                self.assertEqual(len(axes), n)
                self.assertEqual(sum(ax.get_visible() for ax in fig.axes), visible)
                self.assertEqual(len(fig.axes), shape[0] * shape[1])
                H["plt"].close(fig)


class TestHistBins(unittest.TestCase):
    def test_integers_get_whole_number_bins(self):
        for values, want in [([1, 2, 3], [0.5, 1.5, 2.5, 3.5]), ([5, 5, 5], [4.5, 5.5]), ([0, 59], None)]:
            with self.subTest(values=values):
                edges = H["hist_bins"](pd.Series(values, dtype="int64"))
                if want is not None:
                    np.testing.assert_array_equal(edges, want)
                else:  # 60 values in at most 30 bins: width 2
                    self.assertEqual(len(edges) - 1, 30)
                    self.assertEqual(edges[1] - edges[0], 2)

    def test_floats_booleans_and_empty_get_the_bin_count(self):
        for values in [pd.Series([0.5, 1.5]), pd.Series([True, False]), pd.Series([], dtype="int64")]:
            with self.subTest(values=values.tolist()):
                self.assertEqual(H["hist_bins"](values), H["HIST_BINS"])

    def test_int64_extremes(self):
        info = np.iinfo(np.int64)
        values = pd.Series([info.min, 0, info.max], dtype="int64")
        edges = H["hist_bins"](values)
        self.assertLessEqual(len(edges) - 1, H["HIST_BINS"])
        self.assertLessEqual(edges[0], info.min)
        self.assertGreaterEqual(edges[-1], float(info.max))
        counts, _ = np.histogram(values.astype(float), bins=edges)
        self.assertEqual(counts.sum(), 3)

    def test_bins_argument(self):
        self.assertEqual(len(H["hist_bins"](pd.Series(range(100)), bins=10)) - 1, 10)


class TestDatePeriods(unittest.TestCase):
    def resampled(self, dates, freq):
        s = pd.Series(1, index=pd.DatetimeIndex(dates))
        return s.resample(freq, closed="left", label="left").sum()

    def test_as_resample(self):
        dates = pd.to_datetime(["2024-01-31 23:30", "2024-02-01 00:10", "2024-03-15 00:00", "2024-03-17 12:00", "2025-01-01 00:00"])
        for freq in ["h", "D", "W-MON", "MS", "YS"]:
            with self.subTest(freq=freq):
                number, starts = H["date_periods"](dates, freq)
                want = self.resampled(dates, freq)
                self.assertTrue(starts.equals(want.index), (starts, want.index))
                np.testing.assert_array_equal(np.bincount(number, minlength=len(starts)), want.to_numpy())

    def test_time_zone_days_and_hours(self):
        dates = pd.date_range("2024-03-30 20:00", "2024-04-01 04:00", freq="90min", tz="Europe/Berlin")  # DST change
        for freq in ["h", "D"]:
            with self.subTest(freq=freq):
                number, starts = H["date_periods"](dates, freq)
                want = self.resampled(dates, freq)
                self.assertTrue(starts.equals(want.index))
                np.testing.assert_array_equal(np.bincount(number, minlength=len(starts)), want.to_numpy())

    def test_empty_and_one_date(self):
        number, starts = H["date_periods"](pd.DatetimeIndex([]), "D")
        self.assertEqual((len(number), len(starts)), (0, 0))
        number, starts = H["date_periods"](pd.to_datetime(["2024-05-05 10:00"]), "MS")
        self.assertEqual(number.tolist(), [0])
        self.assertEqual(starts[0], pd.Timestamp("2024-05-01"))

    def test_missing_dates_are_left_out_by_the_caller(self):
        dates = pd.Series(pd.to_datetime(["2024-01-01", None, "2024-01-03"]))
        present = dates[dates.notna()]
        number, starts = H["date_periods"](present, "D")
        self.assertEqual(number.tolist(), [0, 2])
        self.assertEqual(len(starts), 3)

    def test_sum_per_code(self):
        for values, codes, count, want in [
            ([1.0, 2.0, 3.0], [0, 0, 2], 3, [3.0, 0.0, 3.0]),
            ([1.0, np.nan, 3.0], [1, 1, 1], 2, [0.0, 4.0]),
            ([True, True, False], [0, 1, 1], 2, [1, 1]),
            ([np.iinfo(np.int64).max, 0], [0, 1], 2, [np.iinfo(np.int64).max, 0]),
        ]:
            with self.subTest(values=values):
                got = H["sum_per_code"](pd.Series(values), np.array(codes), count)
                np.testing.assert_array_equal(got, want)


class TestBoxStats(unittest.TestCase):
    def test_as_matplotlib(self):
        rng = np.random.default_rng(3)
        for values in [rng.normal(size=101), np.array([5.0] * 10), np.array([1.0, 2.0, 3.0, 100.0]),
                       np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max], dtype=float), np.array([0.0, 1.0])]:
            with self.subTest(values=values[:4]):
                got = H["box_stats"](values)
                want = cbook.boxplot_stats(values)[0]
                for key in ["med", "q1", "q3", "whislo", "whishi"]:
                    self.assertEqual(got[key], want[key], key)


class TestHexbin(unittest.TestCase):
    def test_counts_as_hexbin(self):
        rng = np.random.default_rng(5)
        for xs, ys in [(rng.normal(size=500), rng.normal(size=500)), (np.ones(20), np.arange(20.0)),
                       (np.zeros(10), np.zeros(10))]:
            with self.subTest(n=len(xs), constant=xs.min() == xs.max()):
                fig, (a, b) = H["plt"].subplots(1, 2)
                ours = H["hexbin_rows"](a, xs, ys, 20)
                theirs = b.hexbin(xs, ys, gridsize=20, mincnt=1)
                H["plt"].close(fig)
                self.assertEqual(sorted(ours.get_array().tolist()), sorted(theirs.get_array().tolist()))


if __name__ == "__main__":
    unittest.main()
