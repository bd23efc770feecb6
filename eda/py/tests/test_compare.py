"""The comparison's statistics (compare_helpers.py) against scipy run on the rows themselves and
values computed by hand."""
import math
import unittest

import numpy as np
import pandas as pd
from scipy import stats

import stage

C = stage.run("compare_helpers.py")


def exact(values):
    """The exact sketch of values: every distinct value with its count."""
    x, w = np.unique(np.asarray(values, dtype=float), return_counts=True)
    return C["Distribution"]({"points": x, "weights": w, "exact": True, "mean": float(np.mean(values)),
                              "std": float(np.std(values, ddof=1)) if len(values) > 1 else None})


class TestDistribution(unittest.TestCase):
    def test_cdf_and_quantile(self):
        d = exact([1, 2, 2, 3, 10])
        for x, want in [(0, 0.0), (1, 0.2), (2, 0.6), (2.5, 0.6), (10, 1.0), (11, 1.0)]:
            with self.subTest(x=x):
                self.assertAlmostEqual(float(d.cdf(x)), want)
        for p, want in [(0.2, 1), (0.21, 2), (0.6, 2), (0.61, 3), (1.0, 10)]:
            with self.subTest(p=p):
                self.assertEqual(float(d.quantile(p)), want)

    def test_shares(self):
        d = exact([1, 2, 2, 3, 10])
        np.testing.assert_allclose(d.shares(np.array([-np.inf, 1, 2, np.inf])), [0.2, 0.4, 0.4])
        np.testing.assert_allclose(d.shares(np.array([-np.inf, np.inf])), [1.0])

    def test_empty(self):
        d = C["Distribution"]({"points": [], "weights": [], "exact": True, "mean": None, "std": None})
        self.assertEqual(d.n, 0)
        self.assertEqual(C["ks_statistic"](d, exact([1])), 1.0)


class TestTests(unittest.TestCase):
    def test_ks_as_scipy(self):
        rng = np.random.default_rng(2)
        for a, b in [(rng.integers(0, 20, 300), rng.integers(0, 25, 200)), ([1, 2, 3], [1, 2, 3]), ([0, 0], [5, 5]),
                     (rng.normal(size=100).round(2), rng.normal(0.5, size=150).round(2))]:
            with self.subTest(a=a[:3]):
                want = stats.ks_2samp(a, b, method="asymp")
                d = C["ks_statistic"](exact(a), exact(b))
                self.assertAlmostEqual(d, want.statistic, places=12)
                self.assertAlmostEqual(C["ks_p_value"](d, len(a), len(b)), want.pvalue, places=9)

    def test_ks_p_value_without_rows(self):
        for n, m in [(0, 5), (5, 0)]:
            with self.subTest(n=n, m=m):
                self.assertEqual(C["ks_p_value"](0.5, n, m), 1.0)

    def test_wasserstein_by_hand_and_scipy(self):
        self.assertAlmostEqual(C["wasserstein"](exact([0, 0]), exact([3, 3])), 3.0)
        rng = np.random.default_rng(4)
        a, b = rng.integers(0, 9, 50), rng.integers(2, 12, 70)
        self.assertAlmostEqual(C["wasserstein"](exact(a), exact(b)), stats.wasserstein_distance(a, b), places=12)

    def test_psi(self):
        for a, b, want in [
            ([0.5, 0.5], [0.5, 0.5], 0.0),
            ([0.5, 0.5], [0.25, 0.75], 0.25 * math.log(0.75 / 0.5) - 0.25 * math.log(0.25 / 0.5)),
            ([1.0, 0.0], [0.0, 1.0], (0.0001 - 1.0) * math.log(0.0001) + (1.0 - 0.0001) * math.log(1 / 0.0001)),
        ]:
            with self.subTest(a=a, b=b):
                self.assertAlmostEqual(C["psi"](np.array(a), np.array(b)), want, places=12)

    def test_psi_edges_are_deciles(self):
        edges = C["psi_edges"](exact(range(1, 101)))
        self.assertEqual(edges[1:-1].tolist(), [10, 20, 30, 40, 50, 60, 70, 80, 90])
        self.assertEqual(C["psi_edges"](exact([7] * 10)).tolist(), [-np.inf, 7, np.inf])  # constant column

    def test_js_distance(self):
        for a, b, want in [([1, 1], [1, 1], 0.0), ([1, 0], [0, 1], math.sqrt(math.log(2))), ([0, 0], [1, 2], 0.0)]:
            with self.subTest(a=a, b=b):
                self.assertAlmostEqual(C["js_distance"](np.array(a, float), np.array(b, float)), want, places=12)

    def test_chi2_as_scipy(self):
        a, b = [50, 30, 20], [40, 40, 20]
        want = stats.chi2_contingency([a, b], correction=False)[1]
        self.assertAlmostEqual(C["chi2_p_value"](a, b), want, places=12)

    def test_chi2_pools_small_categories(self):
        a, b = [50, 30, 2, 1], [40, 40, 1, 2]
        want = stats.chi2_contingency([[50, 30, 3], [40, 40, 3]], correction=False)[1]
        self.assertAlmostEqual(C["chi2_p_value"](a, b), want, places=12)

    def test_chi2_nothing_to_test(self):
        for a, b in [([0, 0], [1, 2]), ([5], [7]), ([10, 0], [10, 0])]:
            with self.subTest(a=a, b=b):
                self.assertEqual(C["chi2_p_value"](a, b), 1.0)

    def test_proportion_p_value(self):
        # k1/n1 = 0.1, k2/n2 = 0.2, pooled 0.15: z = 0.1 / sqrt(0.15 * 0.85 * 0.02)
        z = 0.1 / math.sqrt(0.15 * 0.85 * (1 / 100 + 1 / 100))
        for k1, n1, k2, n2, want in [(10, 100, 20, 100, 2 * stats.norm.sf(z)), (0, 10, 0, 10, 1.0), (10, 10, 5, 5, 1.0),
                                     (1, 0, 1, 5, 1.0), (5, 50, 5, 50, 1.0)]:
            with self.subTest(k1=k1, n1=n1, k2=k2, n2=n2):
                self.assertAlmostEqual(C["proportion_p_value"](k1, n1, k2, n2), want, places=12)


class TestCounts(unittest.TestCase):
    def test_aligned_counts(self):
        for args, want in [
            (({"a": 1, "b": 2}, {"b": 3, "c": 4}), (["a", "b", "c"], [1, 2, 0], [0, 3, 4])),
            (({"a": 1, "b": 2}, {"b": 3, "c": 4}, 0, 0, False, True), (["a", "b", "(other)"], [1, 2, 0], [0, 3, 4])),  # c: a did not count all
            (({"a": 1}, {"a": 2}, 5, 0), (["a", "(other)"], [1, 5], [2, 0])),
            (({}, {}), ([], [], [])),
        ]:
            with self.subTest(args=args):
                names, a, b = C["aligned_counts"](*args)
                self.assertEqual((names, a.tolist(), b.tolist()), want)

    def test_number_and_value_counts(self):
        self.assertEqual(C["number_counts"](exact([1, 1, 2.5])), {"1": 2, "2.5": 1})
        self.assertEqual(C["value_shares"]({"top": [["x", 3], ["y", 1]], "other_rows": 7}), ({"x": 3, "y": 1}, 7))


class TestPeriods(unittest.TestCase):
    def test_period_counts(self):
        day = int(np.datetime64("2024-03-04", "D").astype(np.int64))  # a Monday
        days = {"unit": "D", "periods": [[day, 1], [day + 1, 2], [day + 7, 4], [day + 28, 8]]}
        hours = {"unit": "h", "periods": [[day * 24 + 1, 1], [day * 24 + 23, 2], [day * 24 + 25, 4]]}
        month = int(np.datetime64("2024-03", "M").astype(np.int64))
        for part, unit, want in [
            (days, "D", {day: 1, day + 1: 2, day + 7: 4, day + 28: 8}),
            (days, "W", {(day + 3) // 7: 3, (day + 3) // 7 + 1: 4, (day + 3) // 7 + 4: 8}),
            (days, "M", {month: 7, month + 1: 8}),
            (days, "Y", {54: 15}),
            (hours, "D", {day: 3, day + 1: 4}),
        ]:
            with self.subTest(unit=unit, own=part["unit"]):
                self.assertEqual(C["period_counts"](part, unit), want)

    def test_period_start(self):
        day = int(np.datetime64("2024-03-06", "D").astype(np.int64))
        for period, unit, want in [((day + 3) // 7, "W", "2024-03-04"), (day, "D", "2024-03-06"),
                                   (int(np.datetime64("2024-03", "M").astype(np.int64)), "M", "2024-03"), (54, "Y", "2024")]:
            with self.subTest(unit=unit):
                self.assertEqual(C["period_start"](period, unit), want)

    def test_common_units(self):
        for a, b, want in [("h", "D", ["D", "W", "M", "Y"]), ("M", "h", ["M", "Y"]), ("Y", "D", ["Y"]), ("h", "h", ["h", "D", "W", "M", "Y"])]:
            with self.subTest(a=a, b=b):
                self.assertEqual(C["common_units"](a, b), want)


if __name__ == "__main__":
    unittest.main()


class TestSketchAccuracy(unittest.TestCase):
    """For pairs of samples of 300,000 values, the KS statistic, W1/σ and PSI computed from the two
    sketches (as the What changed stage computes them) against the same computed from every value
    (scipy's ks_2samp and wasserstein_distance; PSI on the same decile edges): in one part (in
    memory) and merged from chunks of 50,000 (out of core). It prints the figures
    docs/benchmarks.md states."""

    def test_within_the_method_notes_bounds(self):
        ns = stage.run("sketch_parts.py", "compare_helpers.py")
        rng = np.random.default_rng(7)
        n = 300_000
        pairs = {
            "normal, shifted 0.05σ": (rng.normal(0, 1, n), rng.normal(0.05, 1, n)),
            "lognormal σ=1.5, ×1.1": (rng.lognormal(3, 1.5, n), 1.1 * rng.lognormal(3, 1.5, n)),
            "prices in cents, ×1.3": (np.round(rng.gamma(2, 30, n), 2), np.round(1.3 * rng.gamma(2, 30, n), 2)),
            "integers 0-50k, same": (rng.integers(0, 50_000, n).astype(float), rng.integers(0, 50_000, n).astype(float)),
            "heavy tail (t, 2 df), same": (rng.standard_t(2, n), rng.standard_t(2, n)),
            "mixture, one mode moved": (np.concatenate([rng.normal(0, 1, n // 2), rng.normal(10, 1, n // 2)]),
                                        np.concatenate([rng.normal(0, 1, n // 2), rng.normal(11, 1, n // 2)])),
        }

        def sketched(values, chunk):
            parts = ns["NumberParts"]()
            for start in range(0, len(values), chunk):
                parts.add(pd.Series(values[start:start + chunk]))
            points, weights, exact_ = parts.finish()
            return ns["Distribution"]({"points": points, "weights": weights, "exact": exact_,
                                      "mean": values.mean(), "std": values.std(ddof=1)})

        # Each sketch's F is within π/(2K) of the data's: D within twice that; a PSI bin's share
        # too, with PSI's terms near 0 where shares agree.
        bound_f = math.pi / (2 * ns["QUANTILE_POINTS"])
        print(f"\n{'pair':52} {'KS':>9} {'W1/σ':>9} {'PSI':>9}   {'|ΔKS|':>9} {'|ΔW1/σ|':>9} {'|ΔPSI|':>9}")
        measured = 0
        for name, (a, b) in pairs.items():
            edges = np.concatenate([[-np.inf], np.unique(np.quantile(a, np.arange(1, 10) / 10, method="inverted_cdf")), [np.inf]])
            share_a, share_b = (np.histogram(x, edges)[0] / len(x) for x in (a, b))
            want = (stats.ks_2samp(a, b).statistic, stats.wasserstein_distance(a, b) / a.std(ddof=1), ns["psi"](share_a, share_b))
            for chunk, how in ((n, "in memory"), (50_000, "out of core")):
                da, db = sketched(a, chunk), sketched(b, chunk)
                edges_a = ns["psi_edges"](da)
                got = (ns["ks_statistic"](da, db), ns["wasserstein"](da, db) / da.std, ns["psi"](da.shares(edges_a), db.shares(edges_a)))
                err = [abs(got[i] - want[i]) for i in range(3)]
                measured += 1
                print(f"{name + ' (' + how + ')':52} {want[0]:9.5f} {want[1]:9.5f} {want[2]:9.5f}   {err[0]:9.2g} {err[1]:9.2g} {err[2]:9.2g}")
                with self.subTest(pair=name, how=how):
                    self.assertLessEqual(err[0], 2 * bound_f, "KS from the sketches, more than 2π/(2K) off")
                    self.assertLessEqual(err[1], 0.005, "W1/σ from the sketches, more than 0.005 (a twentieth of the warn threshold) off")
                    self.assertLessEqual(err[2], 0.005 + 0.05 * want[2], "PSI from the sketches, more than 0.005 + 5% off")
        self.assertEqual(measured, 12)
