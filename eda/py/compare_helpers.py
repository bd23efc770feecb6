from scipy import stats
from scipy.spatial import distance


class Distribution:
    """A numeric column as its sketch keeps it: points x_1 < ... < x_k, each standing for w_j rows
    (every distinct value with its count when the sketch is exact). Its distribution function is
    F(x) = (sum of w_j over x_j <= x) / n, a step function, like the data's own."""

    def __init__(self, part):
        self.x = np.asarray(part["points"], dtype="float64")
        self.w = np.asarray(part["weights"], dtype="float64")
        self.n = self.w.sum()
        self.F = np.concatenate([[0.0], np.cumsum(self.w) / self.n]) if self.n else np.zeros(1)
        self.exact = part["exact"]
        self.mean, self.std = part["mean"], part["std"]

    def cdf(self, x):
        """F(x): the share of rows with a value <= x."""
        return self.F[np.searchsorted(self.x, x, side="right")]

    def quantile(self, p):
        """The smallest point x with F(x) >= p (the data's own quantile when the sketch is exact)."""
        return self.x[np.minimum(np.searchsorted(self.F[1:], np.asarray(p) - 1e-12), len(self.x) - 1)]

    def shares(self, edges):
        """The share of rows in each bin (e_{i-1}, e_i], the first bin from minus infinity and the
        last to plus infinity."""
        return np.diff(np.concatenate([[0.0], self.cdf(edges[1:-1]), [1.0]]))


def ks_statistic(a, b):
    """Kolmogorov–Smirnov D = max |F_a(x) - F_b(x)|: both are step functions, so the largest gap is
    at one of their points."""
    if not a.n or not b.n:
        return 1.0  # nothing to compare: as far apart as can be
    xs = np.union1d(a.x, b.x)
    return float(np.abs(a.cdf(xs) - b.cdf(xs)).max())


def ks_p_value(d, n, m):
    """The asymptotic two-sample KS p-value for D of samples of n and m rows (scipy's ks_2samp,
    method='asymp')."""
    return float(stats.kstwo.sf(d, np.round(n * m / (n + m)))) if n and m else 1.0


def wasserstein(a, b):
    """W1 = integral of |F_a(x) - F_b(x)| dx, of the two sketches (scipy, with the rows as weights)."""
    return float(stats.wasserstein_distance(a.x, b.x, a.w, b.w))


def psi(a_shares, b_shares):
    """Population stability index, sum of (b - a) ln(b / a) over the bins; empty bins count as
    0.0001, as Evidently fills them."""
    a, b = np.where(a_shares > 0, a_shares, 0.0001), np.where(b_shares > 0, b_shares, 0.0001)
    return float(np.sum((b - a) * np.log(b / a)))


def psi_edges(a):
    """PSI's bins: the baseline's deciles (ten bins of a tenth of its rows each, fewer where values repeat)."""
    inner = np.unique(a.quantile(np.arange(1, 10) / 10))
    return np.concatenate([[-np.inf], inner, [np.inf]])


def value_shares(part):
    """A column's counted values: {value as text: rows}, and the rows of values not kept (its tail)."""
    return dict(part["top"]), part["other_rows"]


def number_counts(d):
    """{value as text: rows} of an exact numeric sketch with few values."""
    return {f"{x:g}": int(round(w)) for x, w in zip(d.x, d.w)}


def aligned_counts(a, b, a_tail=0, b_tail=0, a_complete=True, b_complete=True):
    """Two count tables on the same categories, in order: those counted on both sides; a value
    counted on one side only counts as 0 on the other when that side is complete (all its values
    counted), else goes with the tails into one "(other)" category. Returns (names, a, b)."""
    names = sorted(set(a) | set(b))
    known = [v for v in names if (v in a or a_complete) and (v in b or b_complete)]
    other_a = a_tail + sum(n for v, n in a.items() if v not in known)
    other_b = b_tail + sum(n for v, n in b.items() if v not in known)
    counts_a = [a.get(v, 0) for v in known]
    counts_b = [b.get(v, 0) for v in known]
    if other_a or other_b:
        known, counts_a, counts_b = known + ["(other)"], counts_a + [other_a], counts_b + [other_b]
    return known, np.array(counts_a, dtype="float64"), np.array(counts_b, dtype="float64")


def js_distance(a, b):
    """Jensen–Shannon distance of two count tables (scipy; natural logarithm, as Evidently)."""
    if a.sum() == 0 or b.sum() == 0:
        return 0.0
    return float(distance.jensenshannon(a / a.sum(), b / b.sum()))


def chi2_p_value(a, b, min_expected=5):
    """The chi-squared test of homogeneity of two count tables (scipy's chi2_contingency without
    continuity correction), after pooling the categories expected to have fewer than min_expected
    rows on either side into one: the test needs about five per cell."""
    a, b = np.asarray(a, dtype="float64"), np.asarray(b, dtype="float64")
    if a.sum() == 0 or b.sum() == 0:
        return 1.0
    pooled = (a + b) / (a.sum() + b.sum())
    small = pooled * min(a.sum(), b.sum()) < min_expected
    if small.any():
        a = np.concatenate([a[~small], [a[small].sum()]])
        b = np.concatenate([b[~small], [b[small].sum()]])
    keep = (a + b) > 0
    if keep.sum() < 2:
        return 1.0
    return float(stats.chi2_contingency(np.array([a[keep], b[keep]]), correction=False)[1])


def proportion_p_value(k1, n1, k2, n2):
    """Two-proportion z-test (pooled), two-sided: is the share k2/n2 different from k1/n1?"""
    if not n1 or not n2:
        return 1.0
    pooled = (k1 + k2) / (n1 + n2)
    if pooled in (0, 1):
        return 1.0
    z = (k2 / n2 - k1 / n1) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return float(2 * stats.norm.sf(abs(z)))


def period_counts(part, unit):
    """A date sketch's rows per period in unit, as {period number: rows}. unit is the sketch's own
    (h, D, M or Y) or a coarser one that its periods nest in: days in weeks (W, from Monday), months
    and years; months in years."""
    periods = np.array([p for p, _ in part["periods"]], dtype=np.int64)
    counts = np.array([n for _, n in part["periods"]], dtype=np.int64)
    own = part["unit"]
    if unit != own and own == "h":
        periods, own = periods // 24, "D"
    if unit == "W":
        periods = (periods + 3) // 7  # 1970-01-01, day 0, was a Thursday: weeks start 3 days before
    elif unit != own:
        periods = periods.astype(f"datetime64[{own}]").astype(f"datetime64[{unit}]").astype(np.int64)
    out = {}
    for p, n in zip(periods.tolist(), counts.tolist()):
        out[p] = out.get(p, 0) + n
    return out


def period_start(period, unit):
    """The start of a period, as text: 2024-03-04 for a day or a week (its Monday), 2024-03 for a month."""
    if unit == "W":
        return str(np.datetime64(period * 7 - 3, "D"))
    return str(np.datetime64(period, unit))


UNITS_FROM = {"h": ("h", "D", "W", "M", "Y"), "D": ("D", "W", "M", "Y"), "M": ("M", "Y"), "Y": ("Y",)}


def common_units(a_unit, b_unit):
    """The period units both date sketches can be counted in, finest first."""
    return [u for u in UNITS_FROM[a_unit] if u in UNITS_FROM[b_unit]]
