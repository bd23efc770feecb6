# ---- Sketches: what a later run compares its data with (analyst run --baseline) ----------
QUANTILE_POINTS = 1_000  # quantiles kept per numeric column (Chebyshev-spaced ranks: fine at both tails)
VALUE_COUNTS_CAP = 1_000  # most frequent values kept per categorical column; the rest are counted as a tail
DECIMAL_PLACES = 4  # few distinct numbers with at most this many decimals are counted by value, as integers are
TIME_PERIODS = 5_000  # periods kept per date column: hours, days, months or years, the finest that fits


def quantile_ranks(n, points=QUANTILE_POINTS):
    """Ranks 0 .. n - 1 of the kept quantiles: p_i = (1 - cos(pi i / points)) / 2, closer together
    towards both ends, so that the tails (where the largest and smallest values are) keep single rows."""
    p = (1 - np.cos(np.pi * np.arange(points + 1) / points)) / 2
    return np.unique(np.rint(p * (n - 1)).astype(np.int64))


def merge_counts(keys, counts):
    """The parts' keys (lists of arrays) sorted and made distinct, with the counts of equal keys added."""
    keys, counts = np.concatenate(keys), np.concatenate(counts)
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return keys[starts], np.add.reduceat(counts, starts)


def rank_weights(ranks, n):
    """The rows each kept rank stands for: those nearer to it than to the next rank, in rank order."""
    bounds = np.concatenate([[0], (ranks[:-1] + ranks[1:] + 1) // 2, [n]])
    return np.diff(bounds)


class NumberParts:
    """A numeric column's values, read a part (chunk) at a time, summarised as points with the
    number of rows each stands for. A part whose values have at most QUANTILE_POINTS + 1 distinct
    values keeps them all with their counts (exact); a larger one keeps its quantiles at
    quantile_ranks. finish() merges the parts the same way."""

    def __init__(self):
        self.points, self.weights = [], []
        self.exact = True
        self.infinite = 0

    def add(self, s, few=False):
        """Adds a part's values; few: it has few distinct values, counted by hashing, not sorted."""
        values = s.dropna().to_numpy()
        if values.dtype.kind not in "iuf":  # nullable integers and floats
            values = values.astype("float64")
        if values.dtype.kind == "f":
            finite = np.isfinite(values)
            self.infinite += int(len(values) - finite.sum())
            values = values[finite]
        if not len(values):
            return
        if values.dtype.kind in "iu" and int(values.max()) < 2**63:
            whole, scale = values.astype(np.int64, copy=False), 1
        else:
            whole, scale = decimal_codes(values) if few else (None, 1)
        if whole is not None and int(whole.max()) - int(whole.min()) < 2 * len(whole):
            # Whole numbers (or few decimals) over a short range: counted by value (np.bincount),
            # without sorting or hashing; the same points and counts as hashing gives, faster.
            low = int(whole.min())
            counts = np.bincount((whole - low).astype(np.intp))
            present = np.flatnonzero(counts)
            self.keep((present + low).astype("float64") / scale, counts[present])  # x / 1 is x
            return
        if few:
            counts = pd.Series(values).value_counts(sort=False).sort_index()
            self.keep(counts.index.to_numpy(dtype="float64"), counts.to_numpy())
            return
        self.keep_sorted(np.sort(values.astype("float64", copy=False)))

    def keep_sorted(self, ordered):
        """Keeps the sorted values' quantiles, or every distinct value when there are few."""
        change = ordered[1:] != ordered[:-1]
        if change.sum() < QUANTILE_POINTS + 1:
            starts = np.concatenate([[0], np.flatnonzero(change) + 1])
            self.keep(ordered[starts], np.diff(np.concatenate([starts, [len(ordered)]])))
            return
        ranks = quantile_ranks(len(ordered))
        self.keep(ordered[ranks], rank_weights(ranks, len(ordered)), exact=False)

    def keep(self, points, weights, exact=True):
        weights = np.asarray(weights, dtype=np.int64)
        if len(points) > QUANTILE_POINTS + 1:
            points, weights = weighted_quantiles(points, weights)
            exact = False
        self.points.append(points)
        self.weights.append(weights)
        self.exact = self.exact and exact

    def finish(self):
        """(points, weights, exact): sorted distinct points and the rows each stands for."""
        if not self.points:
            return np.zeros(0), np.zeros(0, dtype=np.int64), True
        points, weights = merge_counts(self.points, self.weights)
        if len(points) <= QUANTILE_POINTS + 1:
            return points, weights, self.exact
        return (*weighted_quantiles(points, weights), False)


def decimal_codes(values):
    """(codes, scale): float64 values written with at most DECIMAL_PLACES decimals (prices, rates) as
    whole numbers, each value exactly code / scale (scale 10 ** decimals, the fewest that fit the
    first values, checked on all), so that counting codes counts values; (None, 1) otherwise,
    or when a value is -0.0 (equal to 0.0, but written otherwise) or beyond 2 ** 52."""
    if values.dtype != np.float64 or not len(values) or np.abs(values).max() * 10 ** DECIMAL_PLACES >= 2**52:
        return None, 1
    head = values[:1000]
    scale = next((10.0 ** d for d in range(DECIMAL_PLACES + 1) if (np.rint(head * 10.0 ** d) / 10.0 ** d == head).all()), None)
    if scale is None:
        return None, 1
    codes = np.rint(values * scale)
    if not (codes / scale == values).all() or np.signbit(values[values == 0]).any():
        return None, 1
    return codes.astype(np.int64), scale


def weighted_quantiles(points, weights):
    """The quantiles at quantile_ranks of sorted distinct points that stand for weights rows each,
    with the rows each kept point now stands for."""
    total = int(weights.sum())
    centres = np.cumsum(weights) - weights / 2  # each point's middle rank
    picked = np.unique(np.minimum(np.searchsorted(centres, quantile_ranks(total)), len(points) - 1))
    bounds = np.rint((centres[picked][:-1] + centres[picked][1:]) / 2).astype(np.int64)
    return points[picked], np.diff(np.concatenate([[0], bounds, [total]]))


HOUR = np.int64(3_600_000_000_000)  # nanoseconds


class DateParts:
    """A date column's rows per hour (wall-clock time, zones dropped), read a part at a time."""

    def __init__(self):
        self.hours, self.counts = [], []  # per part, merged when they grow long
        self.zone = None

    def add(self, s):
        dates = pd.DatetimeIndex(s.dropna())
        if not len(dates):
            return
        self.zone = None if dates.tz is None else str(dates.tz)
        wall = (dates.tz_localize(None) if dates.tz is not None else dates).to_numpy().astype("datetime64[ns]")
        hours = wall.astype(np.int64) // HOUR
        low = int(hours.min())
        if int(hours.max()) - low < 4 * len(hours):
            counts = np.bincount((hours - low).astype(np.intp))
            present = np.flatnonzero(counts)
            self.hours.append(present + low)
            self.counts.append(counts[present])
        else:
            hours, counts = np.unique(hours, return_counts=True)
            self.hours.append(hours)
            self.counts.append(counts)
        if sum(map(len, self.hours)) > 1_000_000:
            hours, counts = merge_counts(self.hours, self.counts)
            self.hours, self.counts = [hours], [counts]

    def finish(self):
        """The rows per period of the finest unit (h, D, M, Y) with at most TIME_PERIODS periods from
        the first date to the last: (unit, [[period, rows], ...]), periods numbered from 1970."""
        if not self.hours:
            return None, []
        hours, counts = merge_counts(self.hours, self.counts)
        for unit in ("h", "D", "M", "Y"):
            periods = hours if unit == "h" else (hours * HOUR).astype("datetime64[ns]").astype(f"datetime64[{unit}]").astype(np.int64)
            if periods[-1] - periods[0] < TIME_PERIODS or unit == "Y":
                starts = np.flatnonzero(np.concatenate([[True], periods[1:] != periods[:-1]]))
                return unit, [[int(p), int(n)] for p, n in zip(periods[starts], np.add.reduceat(counts, starts))]


class SketchParts:
    """The numeric and date columns' parts, by column name."""

    def __init__(self):
        self.numbers, self.dates = {}, {}

    def add(self, name, s, few=False):
        if pd.api.types.is_datetime64_any_dtype(s):
            self.dates.setdefault(name, DateParts()).add(s)
        elif pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            self.numbers.setdefault(name, NumberParts()).add(s, few)


sketch_parts = SketchParts()
