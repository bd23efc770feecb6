package eda

import (
	"context"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// The correlations, time-series and over-time cells rank and bucket in O(n)
// (factorize, integer period numbers) instead of pandas' rank, resample and
// groupby by date, which sort. This pins that they give exactly what those
// give, on small frames with the awkward cases: ties, missing values, ±0, ±inf,
// an all-missing column, one row, empty periods, dates before 1970, weeks,
// hours, dates with a time zone (UTC, daylight saving, a half-hour offset),
// integer and float values, a missing category.
func TestFastRanksAndPeriodsMatchPandas(t *testing.T) {
	k := kerneltest.Start(t, nil)
	mustRun(t, k, Setup())
	run := func(t *testing.T, what, code string) string {
		t.Helper()
		ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{Timeout: cellTimeout})
		if err != nil || ex.Status != kernel.StatusOK {
			t.Fatalf("%s: %v %v\n%s", what, err, ex.Error, traceback(ex))
		}
		if strings.Contains(ex.Stderr(), "Warning") {
			t.Errorf("%s wrote a warning:\n%s", what, ex.Stderr())
		}
		return ex.Stdout()
	}
	run(t, "chart helpers", constants(chartHelpersPy, "HIST_BINS", "30"))

	// The same frame, exactly: values, dtypes, index and column names.
	const same = `
def same_frame(got, want):
    return bool(got.shape == want.shape and got.equals(want) and list(got.dtypes) == list(want.dtypes)
                and got.index.equals(want.index) and list(got.columns) == list(want.columns)
                and got.columns.name == want.columns.name)
`
	run(t, "same_frame", same)

	// hexbin_rows draws what ax.hexbin draws: the same hexagons, counts,
	// limits and PNG bytes.
	t.Run("hexbin", func(t *testing.T) {
		got := run(t, "hexbin", `
def hexbin_same(xs, ys):
    figs, bins = [], []
    for draw in (lambda ax: ax.hexbin(xs, ys, gridsize=40, mincnt=1, cmap="viridis", linewidths=0),
                 lambda ax: hexbin_rows(ax, xs, ys, gridsize=40, cmap="viridis", linewidths=0)):
        fig, ax = plt.subplots()
        bins.append(draw(ax))
        fig.colorbar(bins[-1], ax=ax)
        png = io.BytesIO()
        fig.savefig(png, format="png")
        figs.append((ax.get_xlim(), ax.get_ylim(), png.getvalue()))
        plt.close(fig)
    return bool(np.array_equal(bins[0].get_offsets(), bins[1].get_offsets())
                and np.array_equal(bins[0].get_array(), bins[1].get_array()) and figs[0] == figs[1])

rng = np.random.default_rng(7)
x = rng.normal(size=200_000)
print(hexbin_same(x, 0.6 * x + rng.normal(size=len(x))),  # more rows than one block
      hexbin_same(rng.integers(1, 12, 5000).astype(float), rng.integers(0, 40, 5000) * 0.25),  # ties on hexagon edges
      hexbin_same(np.full(100, 3.0), rng.normal(size=100)),  # a constant column: the range is widened
      hexbin_same(np.array([1.0]), np.array([2.0])))`)
		if got != "True True True True\n" {
			t.Errorf("hexbin_rows against ax.hexbin: got %q, want True True True True", got)
		}
	})

	// box_stats gives the boxes and whiskers cbook.boxplot_stats gives.
	t.Run("box stats", func(t *testing.T) {
		got := run(t, "box stats", `from matplotlib import cbook
rng = np.random.default_rng(3)
samples = [rng.lognormal(size=10_001), rng.integers(0, 5, 1000).astype(float), np.array([2.5]), np.full(7, 1.0),
           np.array([1.0, 2.0, 3.0, 4.0, 100.0, -50.0]), np.concatenate([np.zeros(90), np.arange(10.0)])]
keys = ["med", "q1", "q3", "whislo", "whishi"]
print(all(all(box_stats(x)[k] == cbook.boxplot_stats(x, whis=1.5)[0][k] for k in keys) for x in samples))`)
		if got != "True\n" {
			t.Errorf("box_stats against cbook.boxplot_stats: got %q, want True", got)
		}
	})

	// The by-category table: each group's median as groupby's median gives
	// it; its finite values and those beyond the whiskers as
	// cbook.boxplot_stats counts them (its fliers).
	t.Run("medians by group", func(t *testing.T) {
		for _, frame := range []string{`pd.DataFrame({"g": ["b", "a", "b", None, "c", "a", "b", "c"],
    "x": [1.0, np.nan, 2.5, 4.0, np.inf, 3.0, 0.1, -np.inf], "n": [1, 2, 3, 4, 5, 6, 8, 9],
    "empty_in_c": [1.0, 2.0, 3.0, 4.0, np.nan, 5.0, 6.0, np.nan]})`,
			// long tails: values beyond the whiskers in every group
			`pd.DataFrame({"g": np.random.default_rng(5).choice(["p", "q", "r", None], 3000),
    "x": np.random.default_rng(6).lognormal(size=3000), "n": np.random.default_rng(7).standard_t(2, size=3000).round(1),
    "empty_in_c": np.random.default_rng(8).normal(size=3000)})`} {
			run(t, "frame", "df = "+frame)
			run(t, "by-category cell", constants(vizGroupsPy, "group_column", `"g"`, "group_values", `["x", "n", "empty_in_c"]`))
			got := run(t, "compare", `from matplotlib import cbook
def finite(s):
    return s[np.isfinite(s.astype(float))]
want = pd.DataFrame(index=pd.Index(group_order, name="g"))
want.insert(0, "rows", group_sizes)
for column in group_values:
    by_group = groups[column].agg(lambda s: len(finite(s.dropna()))).reindex(group_order)
    want["values " + column] = by_group.astype(int)
    want["median " + column] = groups[column].median().reindex(group_order).astype(float)
    want["beyond whiskers " + column] = groups[column].agg(
        lambda s: len(cbook.boxplot_stats(finite(s.dropna()).to_numpy(float))[0]["fliers"]) if len(finite(s.dropna())) else 0
    ).reindex(group_order).astype(int)
print(same_frame(group_table, want), want.index.name == group_table.index.name,
      bool(want.filter(like="beyond").to_numpy().sum() > 0 or len(df) < 100))`)
			if got != "True True True\n" {
				t.Errorf("by-category table equal to groupby's medians and cbook's fliers: got %q, want True True True", got)
			}
		}
	})

	spearmanFrames := map[string]string{
		"ties and missing": `pd.DataFrame({
    "ties": [3, 1, 3, np.nan, 2, 3, 1, 2, np.nan, 0],
    "floats": [0.5, -0.0, 0.0, np.inf, -np.inf, 0.5, np.nan, 1e300, -2.5, 0.5],
    "ints": np.arange(10) % 3,
    "empty": [np.nan] * 10,
    "nullable": pd.array([1, None, 2, 2, None, 5, 1, 1, 3, 4], dtype="Int64"),
    "flags": [True, False, False, True, True, False, True, True, False, True],
})`,
		"one row":  `pd.DataFrame({"a": [1.5], "b": [2]})`,
		"distinct": `pd.DataFrame({"a": np.random.default_rng(1).normal(size=5000), "b": np.random.default_rng(2).integers(0, 40, 5000)})`,
	}
	for name, frame := range spearmanFrames {
		t.Run("spearman "+name, func(t *testing.T) {
			run(t, "frame", "df = "+frame+"\ncols = list(df.columns)")
			run(t, "correlations cell", constants(correlationPy, "correlation_columns", "cols"))
			got := run(t, "compare", `want_ranks = df[cols].rank()
print(all(np.array_equal(average_ranks(df[c]), want_ranks[c].to_numpy(dtype=float, na_value=np.nan), equal_nan=True) for c in cols),
      same_frame(spearman, want_ranks.corr(method="pearson")))`)
			if got != "True True\n" {
				t.Errorf("ranks equal to pandas' rank(), Spearman matrix equal to rank().corr(): got %q, want True True", got)
			}
		})
	}

	// dates, then values (v) and groups (g) row by row.
	dateFrames := map[string]struct{ frame, freq string }{
		"months with a gap": {`pd.DataFrame({"d": pd.to_datetime(["2023-01-31 23:59", "2023-01-01", None, "2023-04-15", "2023-01-15", "2023-04-01"], format="ISO8601"),
    "v": [1.5, np.nan, 2.0, 4.25, 0.1, 0.2], "g": ["a", "b", "a", None, "c", "a"]})`, "MS"},
		"years before 1970": {`pd.DataFrame({"d": pd.to_datetime(["1950-06-01", "1969-12-31 23:00", "1972-01-01", "1950-01-01"], format="ISO8601"),
    "v": [1, 2, 3, 4], "g": ["x", "x", "y", "z"]})`, "YS"},
		"weeks": {`pd.DataFrame({"d": pd.to_datetime(["2024-01-01", "2024-01-07 23:59", "2024-01-08", "2023-12-31", "1969-12-29", "1970-01-01", "2024-02-20"], format="ISO8601"),
    "v": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0], "g": ["a", "b", "a", "b", "a", "c", "d"]})`, "W-MON"},
		"days": {`pd.DataFrame({"d": pd.to_datetime(["2024-03-01 10:00", "2024-03-01 00:00", "2024-03-04", None], format="ISO8601"),
    "v": [1, 2, 3, 4], "g": ["a", "a", "b", "b"]})`, "D"},
		"hours, UTC": {`pd.DataFrame({"d": pd.to_datetime(["2024-03-01 10:59:59", "2024-03-01 10:00", "2024-03-01 13:30", "2024-03-01 09:00"], format="ISO8601", utc=True),
    "v": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "a"]})`, "h"},
		"months, UTC": {`pd.DataFrame({"d": pd.to_datetime(["2024-03-31 23:30", "2024-01-01", "2024-03-01"], format="ISO8601", utc=True),
    "v": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]})`, "MS"},
		"hours across daylight saving, Paris": {`pd.DataFrame({"d": pd.date_range("2024-10-26 22:00", "2024-10-27 05:00", freq="17min", tz="UTC").tz_convert("Europe/Paris")})
df = df.assign(v=np.arange(len(df)) * 0.5, g=np.where(np.arange(len(df)) % 3 == 0, "a", "b"))`, "h"},
		"hours, India (+05:30)": {`pd.DataFrame({"d": pd.date_range("2024-01-01", "2024-01-01 06:00", freq="23min", tz="UTC").tz_convert("Asia/Kolkata")})
df = df.assign(v=np.arange(len(df)) * 1.5, g="a")`, "h"},
		"days across daylight saving, Paris": {`pd.DataFrame({"d": pd.date_range("2024-03-29", "2024-04-02", freq="97min", tz="UTC").tz_convert("Europe/Paris")})
df = df.assign(v=np.arange(len(df)), g="a")`, "D"},
		"one category, all missing groups": {`pd.DataFrame({"d": pd.to_datetime(["2024-01-05", "2024-03-01"], format="ISO8601"), "v": [1.0, 2.0], "g": [None, None]})`, "MS"},
	}
	for name, c := range dateFrames {
		t.Run("periods "+name, func(t *testing.T) {
			run(t, "frame", "df = "+c.frame)
			run(t, "time-series cell", constants(timeSeriesPy, "date_column", `"d"`, "value_column", `"v"`,
				"FREQUENCY", pyString(c.freq))+"\n"+constants(timeSeriesChartPy, "PERIOD_WORD", `"period"`))
			run(t, "over-time cell", constants(vizTimePy, "trend_date", `"d"`, "trend_value", `"v"`, "trend_group", `"g"`,
				"TREND_FREQUENCY", pyString(c.freq), "TREND_LINES", "2", "TREND_WORD", `"period"`))
			// What the cells computed before: resample and groupby by a date Grouper.
			got := run(t, "compare", `dates = pd.DatetimeIndex(df.loc[dated, "d"])
want = pd.DataFrame({"rows": pd.Series(1, index=dates).resample(FREQUENCY, closed="left", label="left").size()})
want["sum of v"] = pd.Series(df.loc[dated, "v"].to_numpy(), index=dates).resample(FREQUENCY, closed="left", label="left").sum()
want.index.name = per_period.index.name
lines = pd.DataFrame({"date": df.loc[dated, "d"], "value": df.loc[dated, "v"],
                      "line": group.astype(object).where(group.isin(largest), "other")})
want_trend = lines.groupby([pd.Grouper(key="date", freq=FREQUENCY, closed="left", label="left"), "line"])["value"].sum().unstack(fill_value=0)
want_trend = want_trend[largest + (["other"] if "other" in want_trend.columns else [])]
want_trend.index.name = trend.index.name
print(same_frame(per_period, want), same_frame(trend, want_trend))`)
			if got != "True True\n" {
				t.Errorf("per-period table equal to resample's, per-line table equal to groupby's: got %q, want True True", got)
				t.Log(run(t, "show", "print(per_period, want, trend, want_trend, sep='\\n')"))
			}
		})
	}
}
