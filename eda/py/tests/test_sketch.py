"""The sketch's parts (sketch_parts.py): quantile ranks, merged counts, numeric parts exact and
approximate, date periods at the finest unit that fits."""
import unittest

import numpy as np
import pandas as pd

import stage

S = stage.run("sketch_parts.py")


def finish_number(*parts, few=False):
    p = S["NumberParts"]()
    for part in parts:
        p.add(pd.Series(part), few)
    return p.finish()


class TestRanks(unittest.TestCase):
    def test_quantile_ranks(self):
        for n, points, want in [(1, 10, [0]), (2, 10, [0, 1]), (5, 4, [0, 1, 2, 3, 4]), (1001, 2, [0, 500, 1000])]:
            with self.subTest(n=n, points=points):
                self.assertEqual(S["quantile_ranks"](n, points).tolist(), want)

    def test_ranks_denser_at_the_tails(self):
        ranks = S["quantile_ranks"](1_000_000)
        self.assertEqual((ranks[0], ranks[-1]), (0, 999_999))
        gaps = np.diff(ranks)
        self.assertLess(gaps[0], gaps[len(gaps) // 2])
        self.assertLess(gaps[-1], gaps[len(gaps) // 2])

    def test_rank_weights_cover_every_row(self):
        for n in [1, 2, 10, 12345]:
            with self.subTest(n=n):
                ranks = S["quantile_ranks"](n)
                weights = S["rank_weights"](ranks, n)
                self.assertEqual(int(weights.sum()), n)
                self.assertTrue((weights > 0).all())

    def test_merge_counts(self):
        for keys, counts, want_keys, want_counts in [
            ([np.array([3, 1]), np.array([1, 2])], [np.array([1, 1]), np.array([5, 2])], [1, 2, 3], [6, 2, 1]),
            ([np.array([2.5])], [np.array([4])], [2.5], [4]),
            ([np.array([1, 1, 1])], [np.array([1, 2, 3])], [1], [6]),
        ]:
            with self.subTest(keys=keys):
                k, c = S["merge_counts"](keys, counts)
                self.assertEqual((k.tolist(), c.tolist()), (want_keys, want_counts))


class TestNumberParts(unittest.TestCase):
    def test_exact_when_few_values(self):
        for parts, few, points, weights in [
            ([[1, 2, 2, 3]], False, [1, 2, 3], [1, 2, 1]),
            ([[1.5, 1.5], [1.5, 0.5]], False, [0.5, 1.5], [1, 3]),
            ([[10, 20, 10]], True, [10, 20], [2, 1]),
            ([[np.iinfo(np.int64).min, np.iinfo(np.int64).max]], False, [float(np.iinfo(np.int64).min), float(np.iinfo(np.int64).max)], [1, 1]),
            ([[5.0] * 7], False, [5.0], [7]),
        ]:
            with self.subTest(parts=parts, few=few):
                p, w, exact = finish_number(*parts, few=few)
                self.assertEqual((p.tolist(), w.tolist(), exact), (points, weights, True))

    def test_missing_and_infinite_values_left_out(self):
        parts = S["NumberParts"]()
        parts.add(pd.Series([1.0, np.nan, np.inf, -np.inf, 2.0]))
        p, w, exact = parts.finish()
        self.assertEqual((p.tolist(), w.tolist(), parts.infinite), ([1.0, 2.0], [1, 1], 2))

    def test_empty(self):
        for parts in [[], [[np.nan]], [pd.Series([], dtype=float)]]:
            with self.subTest(parts=parts):
                p, w, exact = finish_number(*parts)
                self.assertEqual((len(p), int(w.sum()), exact), (0, 0, True))

    def test_nullable_integers(self):
        p, w, _ = finish_number(pd.array([1, None, 3], dtype="Int64"))
        self.assertEqual((p.tolist(), w.tolist()), ([1.0, 3.0], [1, 1]))

    def test_many_values_become_quantiles_within_a_rank(self):
        rng = np.random.default_rng(11)
        values = rng.normal(size=50_000)
        for parts in [[values], np.array_split(values, 7)]:
            with self.subTest(parts=len(parts)):
                p, w, exact = finish_number(*parts)
                self.assertFalse(exact)
                self.assertEqual(int(w.sum()), len(values))
                self.assertLessEqual(len(p), S["QUANTILE_POINTS"] + 1)
                ordered = np.sort(values)
                self.assertEqual((p[0], p[-1]), (ordered[0], ordered[-1]))  # the tails keep single rows
                cdf = np.cumsum(w) / w.sum()
                median = p[np.searchsorted(cdf, 0.5)]
                rank = np.searchsorted(ordered, median) / len(values)
                self.assertLess(abs(rank - 0.5), 0.01)

    def test_few_values_counted_as_hashing_counts_them(self):
        # Integers and numbers with few decimals are counted by value (bincount); every column
        # must give the very points (to the bit) and rows that hashing the values gives.
        rng = np.random.default_rng(5)
        prices = rng.integers(0, 1000, 20_000) / 100  # at most QUANTILE_POINTS + 1 values: all kept
        for name, values, by_value in [
            ("integers", rng.integers(-5, 40, 20_000), True),
            ("prices", prices, True),
            ("shares", rng.integers(0, 5, 20_000) * 0.05, False),  # 0.15000000000000002 is not 0.15: hashed
            ("one decimal", rng.integers(-150, 150, 20_000) / 10, True),
            ("computed", rng.integers(0, 300, 20_000) / 10 - 15, False),  # -12.700000000000001: hashed
            ("negative zero", np.concatenate([[-0.0], prices]), False),
            ("more decimals later", np.concatenate([prices, [1.23456]]), False),
            ("too many decimals", rng.integers(0, 50, 20_000) / 1e5 + 1 / 3, False),
            ("huge", prices * 1e14, False),
        ]:
            with self.subTest(name):
                p, w, exact = finish_number(values, few=True)
                counts = pd.Series(values).value_counts(sort=False).sort_index()
                self.assertEqual(p.tobytes(), counts.index.to_numpy(dtype="float64").tobytes())
                self.assertEqual(w.tolist(), counts.tolist())
                if values.dtype == np.float64:
                    self.assertEqual(S["decimal_codes"](values)[0] is not None, by_value)

    def test_weighted_quantiles_keep_the_rows(self):
        points = np.arange(5000, dtype=float)
        weights = np.full(5000, 3, dtype=np.int64)
        p, w = S["weighted_quantiles"](points, weights)
        self.assertEqual(int(w.sum()), 15000)
        self.assertEqual((p[0], p[-1]), (0.0, 4999.0))
        self.assertTrue((np.diff(p) > 0).all())


class TestDateParts(unittest.TestCase):
    def finish(self, *parts):
        d = S["DateParts"]()
        for part in parts:
            d.add(pd.Series(part))
        return d.finish()

    def test_finest_unit_that_fits(self):
        for dates, unit in [
            (pd.date_range("2024-01-01", periods=48, freq="h"), "h"),
            (pd.date_range("2024-01-01", periods=400, freq="D"), "D"),
            (pd.to_datetime(["1990-01-01", "2024-01-01"]), "M"),
            (pd.to_datetime(["1700-01-01", "2200-01-01"]), "Y"),
        ]:
            with self.subTest(unit=unit):
                self.assertEqual(self.finish(dates)[0], unit)

    def test_rows_per_period(self):
        dates = pd.to_datetime(["2024-01-01 10:15", "2024-01-01 10:45", None, "2024-01-01 12:00"])
        unit, periods = self.finish(dates)
        hour = int(pd.Timestamp("2024-01-01 10:00").value // 3_600_000_000_000)
        self.assertEqual((unit, periods), ("h", [[hour, 2], [hour + 2, 1]]))

    def test_parts_merged(self):
        a = pd.to_datetime(["2024-01-01", "2024-01-02"])
        b = pd.to_datetime(["2024-01-02", "2024-01-03"])
        self.assertEqual([n for _, n in self.finish(a, b)[1]], [1, 2, 1])

    def test_zones_dropped_wall_clock_kept(self):
        d = S["DateParts"]()
        d.add(pd.Series(pd.to_datetime(["2024-06-01 10:00"]).tz_localize("Europe/Berlin")))
        unit, periods = d.finish()
        self.assertEqual(d.zone, "Europe/Berlin")
        self.assertEqual(periods[0][0], int(pd.Timestamp("2024-06-01 10:00").value // 3_600_000_000_000))

    def test_no_dates(self):
        self.assertEqual(self.finish(pd.Series([pd.NaT, pd.NaT])), (None, []))


class TestSketchParts(unittest.TestCase):
    def test_columns_by_kind(self):
        parts = S["SketchParts"]()
        for name, s in [("n", pd.Series([1, 2])), ("d", pd.Series(pd.to_datetime(["2024-01-01"]))),
                        ("b", pd.Series([True, False])), ("t", pd.Series(["x"]))]:
            parts.add(name, s)
        self.assertEqual((sorted(parts.numbers), sorted(parts.dates)), (["n"], ["d"]))


class TestValuePart(unittest.TestCase):
    """A categorical column's part of the sketch (sketch.py's value_part), with a cap of 4."""
    V = stage.run("profile_helpers.py", "sketch_parts.py", ("sketch.py", {"FEED_DF": False}), df=pd.DataFrame(),
                  column_info=[], rows=0, value_counts={})
    V["VALUE_COUNTS_CAP"] = 4

    def part(self, counts):
        s = pd.Series(counts)
        return self.V["value_part"](s, int(s.sum()), len(s), None)

    def test_identifiers_seen_once_go_to_the_tail(self):
        # The cap would keep 4 of the 10 identifiers seen once, chosen by their text.
        got = self.part({**{f"id{i}": 1 for i in range(10)}, "x": 3})
        self.assertEqual(got, {"top": [["x", 3]], "other_rows": 10, "other_values": 10, "complete": False,
                               "sample": None})

    def test_only_identifiers(self):
        got = self.part({f"id{i}": 1 for i in range(10)})
        self.assertEqual((got["top"], got["other_rows"], got["other_values"]), ([], 10, 10))

    def test_tie_inside_the_cap_kept(self):
        got = self.part({"a": 5, "b": 2, "c": 2, "d": 1, "e": 1, "f": 1})
        self.assertEqual(got["top"], [["a", 5], ["b", 2], ["c", 2]])
        got = self.part({"a": 5, "b": 2, "c": 2, "d": 2, "e": 1})
        self.assertEqual((got["top"], got["other_rows"], got["other_values"]),
                         ([["a", 5], ["b", 2], ["c", 2], ["d", 2]], 1, 1))

    def test_every_value_kept_when_within_the_cap(self):
        got = self.part({"a": 1, "b": 1, "c": 1})
        self.assertEqual((got["top"], got["complete"]), ([["a", 1], ["b", 1], ["c", 1]], True))


if __name__ == "__main__":
    unittest.main()
