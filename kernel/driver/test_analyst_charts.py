"""Tests for analyst_charts: real figures from matplotlib, pandas, seaborn and
plotly, checked against the numbers they were built from.

Run: python3 -m unittest -v test_analyst_charts  (needs matplotlib, pandas,
seaborn and plotly; MPLBACKEND=Agg).
"""

import json
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import plotly.express as px  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import plotly.io as pio  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from plotly.subplots import make_subplots  # noqa: E402

from analyst_charts import MAX_POINTS, describe_figure, describe_plotly  # noqa: E402

RNG = np.random.default_rng(0)
SALES = pd.DataFrame({
    "region": ["north", "south", "east", "west"] * 6,
    "product": ["a", "b", "b"] * 8,  # every region sells both products
    "amount": RNG.integers(1, 100, 24).astype(float),
})


def describe(fig):
    """Like the driver: render first, then describe; the result must be JSON."""
    fig.canvas.draw()
    d = describe_figure(fig)
    json.dumps(d, allow_nan=False)
    plt.close(fig)
    return d


def only_series(d, kind):
    """The series of a one-axes description, checking its kind."""
    assert d["kind"] == kind, d["kind"]
    assert len(d["axes"]) == 1, len(d["axes"])
    assert d["axes"][0]["kind"] == kind
    return d["axes"][0]["series"]


def plotly_desc(fig):
    """Describe the figure's dict, and check that the JSON round trip the
    driver applies (dates to strings, arrays to lists, NaN to null) gives the
    same description."""
    d = describe_plotly(fig.to_dict())
    json.dumps(d, allow_nan=False)
    assert d == describe_plotly(json.loads(pio.to_json(fig.to_plotly_json(), validate=False)))
    return d


class BarTests(unittest.TestCase):
    def test_matplotlib_categories(self):
        sums = SALES.groupby("region")["amount"].sum()
        fig, ax = plt.subplots()
        ax.bar(sums.index, sums.values, label="total")
        ax.set(title="Sales by region", xlabel="Region", ylabel="Amount")
        d = describe(fig)
        (s,) = only_series(d, "bar")
        self.assertEqual((d["title"], d["x_label"], d["y_label"]),
                         ("Sales by region", "Region", "Amount"))
        self.assertEqual(s["label"], "total")
        self.assertEqual(s["categories"], list(sums.index))
        self.assertEqual(s["values"], list(sums.values))
        self.assertEqual(s["orientation"], "vertical")
        self.assertEqual(d["axes"][0]["x_tick_labels"], list(sums.index))

    def test_pandas_grouped_and_stacked(self):
        table = SALES.pivot_table(index="region", columns="product",
                                  values="amount", aggfunc="sum")
        for stacked in (False, True):
            fig, ax = plt.subplots()
            table.plot.bar(ax=ax, stacked=stacked, title="by product")
            d = describe(fig)
            series = only_series(d, "bar")
            self.assertEqual([s["label"] for s in series], ["a", "b"])
            for s in series:
                self.assertEqual(s["categories"], list(table.index))
                self.assertEqual(s["values"], list(table[s["label"]]))
            self.assertEqual(d["title"], "by product")
            self.assertEqual(d["x_label"], "region")

    def test_pandas_barh(self):
        sums = SALES.groupby("region")["amount"].sum()
        fig, ax = plt.subplots()
        sums.plot.barh(ax=ax)
        (s,) = only_series(describe(fig), "bar")
        self.assertEqual(s["orientation"], "horizontal")
        self.assertEqual(s["categories"], list(sums.index))
        self.assertEqual(s["values"], list(sums.values))

    def test_seaborn_barplot_ignores_confidence_lines(self):
        means = SALES.groupby("region", sort=False)["amount"].mean()
        fig, ax = plt.subplots()
        sns.barplot(data=SALES, x="region", y="amount", ax=ax)
        (s,) = only_series(describe(fig), "bar")
        self.assertEqual(s["categories"], list(means.index))
        np.testing.assert_allclose(s["values"], means.values)

    def test_seaborn_countplot_with_hue(self):
        fig, ax = plt.subplots()
        sns.countplot(data=SALES, x="region", hue="product", ax=ax)
        series = only_series(describe(fig), "bar")
        self.assertEqual([s["label"] for s in series], ["a", "b"])
        counts = SALES.groupby(["product", "region"], sort=False).size()
        for s in series:
            self.assertEqual(s["values"], [counts[s["label"]][r] for r in s["categories"]])

    def test_date_positions(self):
        days = pd.date_range("2024-03-01", periods=3)
        fig, ax = plt.subplots()
        ax.bar(days, [1, 2, 3])
        d = describe(fig)
        (s,) = only_series(d, "bar")
        self.assertEqual(s["categories"][0], "2024-03-01T00:00:00")
        self.assertEqual(d["axes"][0]["x_tick_labels"], [])


class LineTests(unittest.TestCase):
    def test_matplotlib(self):
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [10, 20, 15], label="revenue")
        ax.plot([1, 2, 3], [5, 4, 3])
        ax.axhline(12, color="k")  # a reference line, not data
        ax.set_yscale("log")
        d = describe(fig)
        series = only_series(d, "line")
        self.assertEqual(series[0], {"label": "revenue", "x": [1.0, 2.0, 3.0],
                                     "y": [10.0, 20.0, 15.0]})
        self.assertEqual(series[1]["label"], "")
        self.assertEqual(len(series), 2)
        self.assertEqual(d["axes"][0]["y_scale"], "log")
        self.assertEqual(d["axes"][0]["x_tick_labels"], [])

    def test_pandas_regular_dates(self):
        s = pd.Series([3.0, 1.0, 2.0], index=pd.date_range("2021-01-01", periods=3), name="v")
        fig, ax = plt.subplots()
        s.plot(ax=ax)
        (line,) = only_series(describe(fig), "line")
        self.assertEqual(line["x"], ["2021-01-01T00:00:00", "2021-01-02T00:00:00",
                                     "2021-01-03T00:00:00"])
        self.assertEqual(line["y"], [3.0, 1.0, 2.0])
        self.assertEqual(line["label"], "v")

    def test_pandas_monthly_and_irregular_dates(self):
        # MonthEnd(), not "M" (deprecated for "ME" in pandas 2.2); the
        # timestamps one by one (pandas 2 parses a list in the first one's format).
        monthly = pd.Series([1, 2], index=pd.date_range("2021-01-31", periods=2, freq=pd.offsets.MonthEnd()))
        irregular = pd.Series([1, 2, 3], index=pd.DatetimeIndex(
            [pd.Timestamp(t) for t in ("2021-01-01", "2021-01-05 12:00", "2021-03-01")]))
        for s, first, second in ((monthly, "2021-01-01", "2021-02-01"),
                                 (irregular, "2021-01-01", "2021-01-05T12:00:00")):
            fig, ax = plt.subplots()
            s.plot(ax=ax)
            (line,) = only_series(describe(fig), "line")
            self.assertTrue(line["x"][0].startswith(first), line["x"])
            self.assertTrue(line["x"][1].startswith(second), line["x"])

    def test_matplotlib_datetimes(self):
        days = pd.date_range("2022-06-01", periods=4).to_pydatetime()
        fig, ax = plt.subplots()
        ax.plot(days, [1, 2, 3, 4])
        (line,) = only_series(describe(fig), "line")
        self.assertEqual(line["x"][-1], "2022-06-04T00:00:00")

    def test_pandas_text_index(self):
        fig, ax = plt.subplots()
        pd.Series([1, 2, 3], index=["mon", "tue", "wed"]).plot(ax=ax)
        (line,) = only_series(describe(fig), "line")
        self.assertEqual(line["x"], ["mon", "tue", "wed"])

    def test_seaborn_hue_lines_named_from_legend(self):
        df = pd.DataFrame({"t": [0, 1, 2] * 2, "v": [1, 2, 3, 3, 2, 1],
                           "g": ["up"] * 3 + ["down"] * 3})
        fig, ax = plt.subplots()
        sns.lineplot(data=df, x="t", y="v", hue="g", ax=ax)
        series = only_series(describe(fig), "line")
        self.assertEqual({s["label"]: s["y"] for s in series},
                         {"up": [1.0, 2.0, 3.0], "down": [3.0, 2.0, 1.0]})

    def test_errorbar_caps_are_not_series(self):
        fig, ax = plt.subplots()
        ax.errorbar([1, 2, 3], [4, 5, 6], yerr=0.5, capsize=3)
        (line,) = only_series(describe(fig), "line")
        self.assertEqual(line["y"], [4.0, 5.0, 6.0])


class ScatterTests(unittest.TestCase):
    def test_matplotlib_pandas_seaborn(self):
        df = pd.DataFrame({"x": RNG.normal(size=30), "y": RNG.normal(size=30),
                           "c": RNG.normal(size=30)})
        makers = [
            lambda ax: ax.scatter(df.x, df.y, label="pts"),
            lambda ax: df.plot.scatter(x="x", y="y", c="c", ax=ax),  # adds a colorbar
            lambda ax: sns.scatterplot(data=df, x="x", y="y", ax=ax),
            lambda ax: ax.plot(df.x, df.y, "o"),
        ]
        for make in makers:
            fig, ax = plt.subplots()
            make(ax)
            (s,) = only_series(describe(fig), "scatter")
            self.assertEqual(s["x"], list(df.x))
            self.assertEqual(s["y"], list(df.y))

    def test_hexbin_with_fitted_line(self):
        x = RNG.normal(size=2000)
        y = 2 * x + RNG.normal(size=2000)
        fig, ax = plt.subplots()
        bins = ax.hexbin(x, y, gridsize=10, mincnt=1)
        fig.colorbar(bins, ax=ax, label="rows")
        ax.plot([x.min(), x.max()], [2 * x.min(), 2 * x.max()], label="fit")
        ax.set_title("y against x")
        d = describe(fig)
        self.assertEqual(d["kind"], "mixed")
        hexes, line = d["axes"][0]["series"]
        self.assertEqual((hexes["kind"], line["kind"]), ("hexbin", "line"))
        self.assertEqual(sum(hexes["counts"]), 2000)  # every point in one hexagon
        self.assertEqual(len(hexes["x"]), len(hexes["counts"]))
        self.assertEqual(len(hexes["y"]), len(hexes["counts"]))
        centres = bins.get_offsets()
        np.testing.assert_allclose(hexes["x"], centres[:, 0])
        np.testing.assert_allclose(hexes["y"], centres[:, 1])

    def test_fill_between_is_not_a_hexbin(self):
        fig, ax = plt.subplots()
        ax.fill_between([0, 1, 2], [1, 2, 1])
        self.assertNotIn("hexbin", json.dumps(describe(fig)))

    def test_contour_is_not_a_scatter(self):
        fig, ax = plt.subplots()
        ax.contour(RNG.normal(size=(5, 5)))
        self.assertEqual(describe(fig)["kind"], "unknown")


class HistTests(unittest.TestCase):
    data = RNG.normal(size=500)

    def test_matplotlib(self):
        fig, ax = plt.subplots()
        ax.hist(self.data, bins=12, label="x")
        (s,) = only_series(describe(fig), "hist")
        counts, edges = np.histogram(self.data, bins=12)
        self.assertEqual(s["counts"], counts.tolist())
        np.testing.assert_allclose(s["bin_edges"], edges)
        self.assertEqual(s["label"], "x")

    def test_matplotlib_stacked(self):
        fig, ax = plt.subplots()
        ax.hist([self.data, self.data[:100]], bins=8, stacked=True)
        series = only_series(describe(fig), "hist")
        self.assertEqual([sum(s["counts"]) for s in series], [500, 100])

    def test_pandas_plot_hist(self):
        df = pd.DataFrame({"a": self.data, "b": self.data * 2})
        fig, ax = plt.subplots()
        df.plot.hist(ax=ax, bins=15, alpha=0.5)
        series = only_series(describe(fig), "hist")
        self.assertEqual([s["label"] for s in series], ["a", "b"])
        self.assertTrue(all(sum(s["counts"]) == 500 for s in series))

    def test_pandas_df_hist_grid(self):
        df = pd.DataFrame({"a": self.data, "b": self.data ** 2, "c": -self.data})
        df.hist(bins=10)  # a 2x2 grid with the fourth axes hidden
        d = describe(plt.gcf())
        self.assertEqual(d["kind"], "hist")
        self.assertEqual([a["title"] for a in d["axes"]], ["a", "b", "c"])
        self.assertTrue(all(sum(a["series"][0]["counts"]) == 500 for a in d["axes"]))

    def test_seaborn(self):
        fig, ax = plt.subplots()
        sns.histplot(x=self.data, bins=20, ax=ax)
        (s,) = only_series(describe(fig), "hist")
        self.assertEqual(sum(s["counts"]), 500)
        self.assertEqual(len(s["bin_edges"]), 21)

    def test_seaborn_dodged_hue_shares_bins(self):
        df = pd.DataFrame({"v": self.data, "g": ["a", "b"] * 250})
        fig, ax = plt.subplots()
        sns.histplot(data=df, x="v", hue="g", multiple="dodge", bins=10, ax=ax)
        series = only_series(describe(fig), "hist")
        edges = np.histogram(self.data, bins=10)[1]
        for s in series:  # labels come from the legend, matched by colour
            np.testing.assert_allclose(s["bin_edges"], edges)
            group = df.v[df.g == s["label"]]
            self.assertEqual(s["counts"], np.histogram(group, bins=edges)[0].tolist())
        self.assertEqual(sorted(s["label"] for s in series), ["a", "b"])

    def test_stairs_of_numpy_histogram(self):
        counts, edges = np.histogram(self.data, bins=7)
        fig, ax = plt.subplots()
        ax.stairs(counts, edges, label="n")
        (s,) = only_series(describe(fig), "hist")
        self.assertEqual((s["label"], s["counts"], s["bin_edges"]),
                         ("n", counts.tolist(), edges.tolist()))

    def test_seaborn_with_kde_is_mixed(self):
        fig, ax = plt.subplots()
        sns.histplot(x=self.data, kde=True, ax=ax)
        d = describe(fig)
        self.assertEqual(d["kind"], "mixed")
        kinds = [s["kind"] for s in d["axes"][0]["series"]]
        self.assertEqual(sorted(kinds), ["hist", "line"])


class PieTests(unittest.TestCase):
    def test_matplotlib_and_pandas(self):
        shares = pd.Series([30, 50, 20], index=["x", "y", "z"])
        for make in (lambda ax: ax.pie(shares.values, labels=shares.index, autopct="%d%%"),
                     lambda ax: shares.plot.pie(ax=ax)):
            fig, ax = plt.subplots()
            make(ax)
            ax.set_title("Share")
            d = describe(fig)
            (s,) = only_series(d, "pie")
            self.assertEqual(d["title"], "Share")
            self.assertEqual(s["labels"], ["x", "y", "z"])
            self.assertAlmostEqual(sum(s["values"]), 1.0)
            np.testing.assert_allclose(s["values"], shares.values / shares.sum())


class BoxTests(unittest.TestCase):
    groups = [RNG.normal(loc=i, size=60).tolist() + [10.0 + i] for i in range(3)]

    def check(self, boxes, groups, labels):
        self.assertEqual([b["label"] for b in boxes], labels)
        for b, g in zip(boxes, groups):
            q1, med, q3 = np.percentile(g, [25, 50, 75])
            self.assertAlmostEqual(b["median"], med)
            self.assertAlmostEqual(b["q1"], q1)
            self.assertAlmostEqual(b["q3"], q3)
            inner = [v for v in g if q1 - 1.5 * (q3 - q1) <= v <= q3 + 1.5 * (q3 - q1)]
            self.assertAlmostEqual(b["min"], min(inner))
            self.assertAlmostEqual(b["max"], max(inner))
            self.assertEqual(sorted(b["outliers"]), sorted(set(g) - set(inner)))

    def test_matplotlib_variants(self):
        # tick_labels and orientation: Matplotlib 3.10's names (labels and
        # vert warn).
        for kw in ({}, {"patch_artist": True}, {"orientation": "horizontal"}, {"notch": True}):
            fig, ax = plt.subplots()
            ax.boxplot(self.groups, tick_labels=["p", "q", "r"], **kw)
            (s,) = only_series(describe(fig), "box")
            self.check(s["boxes"], self.groups, ["p", "q", "r"])

    def test_whisker_at_the_box_edge(self):
        # [1, 2, 3, 50]: Q1 1.75, median 2.5, Q3 14.75; no value lies between Q3
        # and its fence, so the upper whisker and its cap sit on the box's top
        fig, ax = plt.subplots()
        ax.boxplot([[1.0, 2.0, 3.0, 50.0]], tick_labels=["p"])
        (s,) = only_series(describe(fig), "box")
        (b,) = s["boxes"]
        self.assertEqual((b["min"], b["q1"], b["median"], b["q3"], b["max"], b["outliers"]),
                         (1.0, 1.75, 2.5, 14.75, 14.75, [50.0]))

    def test_pandas(self):
        df = pd.DataFrame({"p": self.groups[0], "q": self.groups[1]})
        for make in (lambda ax: df.boxplot(ax=ax), lambda ax: df.plot.box(ax=ax)):
            fig, ax = plt.subplots()
            make(ax)
            (s,) = only_series(describe(fig), "box")
            self.check(s["boxes"], self.groups[:2], ["p", "q"])

    def test_seaborn_hue(self):
        df = pd.DataFrame({"g": ["p"] * 122, "h": ["u", "w"] * 61,
                           "v": self.groups[0] + self.groups[1]})
        fig, ax = plt.subplots()
        sns.boxplot(data=df, x="g", y="v", hue="h", ax=ax)
        (s,) = only_series(describe(fig), "box")
        self.check(s["boxes"], [df.v[df.h == "u"].tolist(), df.v[df.h == "w"].tolist()],
                   ["p / u", "p / w"])

    def test_seaborn(self):
        df = pd.DataFrame({"g": ["p"] * 61 + ["q"] * 61, "v": self.groups[0] + self.groups[1]})
        fig, ax = plt.subplots()
        sns.boxplot(data=df, x="g", y="v", ax=ax)
        (s,) = only_series(describe(fig), "box")
        self.check(s["boxes"], self.groups[:2], ["p", "q"])


class HeatmapTests(unittest.TestCase):
    corr = pd.DataFrame(RNG.normal(size=(40, 4)), columns=list("abcd")).corr()

    def check(self, d):
        (s,) = only_series(d, "heatmap")  # one axes: the colorbar is not counted
        self.assertEqual(s["rows"], list("abcd"))
        self.assertEqual(s["columns"], list("abcd"))
        np.testing.assert_allclose(s["values"], self.corr.values)

    def test_seaborn(self):
        fig, ax = plt.subplots()
        sns.heatmap(self.corr, annot=True, ax=ax)
        self.check(describe(fig))

    def test_imshow_and_pcolormesh(self):
        for draw in ("imshow", "pcolormesh"):
            fig, ax = plt.subplots()
            art = getattr(ax, draw)(self.corr.values)
            fig.colorbar(art)
            centers = range(4) if draw == "imshow" else np.arange(4) + 0.5
            ax.set_xticks(list(centers), list("abcd"))
            ax.set_yticks(list(centers), list("abcd"))
            self.assertEqual(len(fig.axes), 2)
            self.check(describe(fig))

    def test_unlabelled_imshow_uses_indices(self):
        fig, ax = plt.subplots()
        ax.imshow(np.arange(6).reshape(2, 3), origin="lower")
        (s,) = only_series(describe(fig), "heatmap")
        self.assertEqual((s["rows"], s["columns"]), (["0", "1"], ["0", "1", "2"]))
        self.assertEqual(s["values"], [[0, 1, 2], [3, 4, 5]])


class FigureTests(unittest.TestCase):
    def test_mixed_subplots(self):
        fig, (a1, a2) = plt.subplots(1, 2)
        a1.bar(["x", "y"], [1, 2])
        a2.plot([1, 2, 3])
        a1.set_title("left")
        fig.suptitle("Overview")
        d = describe(fig)
        self.assertEqual(d["kind"], "mixed")
        self.assertEqual([a["kind"] for a in d["axes"]], ["bar", "line"])
        self.assertEqual(d["title"], "Overview")

    def test_same_kind_subplots_without_suptitle(self):
        fig, axes = plt.subplots(2)
        for i, ax in enumerate(axes):
            ax.plot([1, 2], [i, i])
            ax.set_title("t%d" % i)
        d = describe(fig)
        self.assertEqual((d["kind"], d["title"], len(d["axes"])), ("line", "", 2))

    def test_empty(self):
        self.assertEqual(describe(plt.figure())["kind"], "empty")
        fig, ax = plt.subplots()
        ax.set_title("nothing yet")
        d = describe(fig)
        self.assertEqual((d["kind"], d["axes"], d["title"]), ("empty", [], "nothing yet"))

    def test_nan_and_inf_become_none(self):
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [1.0, np.nan, np.inf])
        ax.bar(["a", "b"], [np.nan, 1.0])
        d = describe(fig)
        line = next(s for s in d["axes"][0]["series"] if s["kind"] == "line")
        bar = next(s for s in d["axes"][0]["series"] if s["kind"] == "bar")
        self.assertEqual(line["y"], [1.0, None, None])
        self.assertEqual(bar["values"], [None, 1.0])

    def test_long_series_truncated(self):
        fig, ax = plt.subplots()
        ax.plot(np.arange(5000), np.arange(5000) * 2.0)
        d = describe(fig)
        (line,) = only_series(d, "line")
        self.assertEqual((len(line["x"]), len(line["y"])), (MAX_POINTS, MAX_POINTS))
        self.assertEqual(line["y"][-1], 2.0 * (MAX_POINTS - 1))
        self.assertTrue(d["truncated"])
        fig, ax = plt.subplots()
        ax.plot([1, 2])
        self.assertFalse(describe(fig)["truncated"])

    def test_large_heatmap_capped(self):
        fig, ax = plt.subplots()
        ax.imshow(np.zeros((300, 200)))
        d = describe(fig)
        (s,) = only_series(d, "heatmap")
        self.assertEqual(len(s["columns"]), 200)
        self.assertLessEqual(len(s["values"]) * len(s["values"][0]), 10000)
        self.assertTrue(d["truncated"])

    def test_broken_artist_does_not_raise(self):
        class Broken(Line2D):
            def get_xydata(self):
                raise RuntimeError("boom")

        fig, (a1, a2) = plt.subplots(1, 2)
        a1.add_line(Broken([0, 1], [0, 1]))
        a2.plot([1, 2])
        d = describe_figure(fig)
        json.dumps(d, allow_nan=False)
        self.assertEqual(d["axes"][0]["kind"], "unknown")
        self.assertIn("boom", d["axes"][0]["error"])
        self.assertEqual(d["axes"][1]["kind"], "line")
        self.assertEqual(d["kind"], "mixed")
        plt.close(fig)

    def test_not_a_figure(self):
        d = describe_figure(None)
        self.assertEqual(d["kind"], "unknown")
        self.assertIn("error", d)

    def test_rgb_image_is_unknown(self):
        fig, ax = plt.subplots()
        ax.imshow(np.zeros((4, 4, 3)))
        self.assertEqual(describe(fig)["kind"], "unknown")

    def test_does_not_change_the_picture(self):
        fig, ax = plt.subplots()
        sns.barplot(data=SALES, x="region", y="amount", ax=ax)
        fig.canvas.draw()
        before = np.asarray(fig.canvas.buffer_rgba()).copy()
        describe_figure(fig)
        fig.canvas.draw()
        np.testing.assert_array_equal(before, np.asarray(fig.canvas.buffer_rgba()))
        plt.close(fig)


    def test_diagram_boxes_and_arrows(self):
        fig, ax = plt.subplots()
        ax.axis("off")
        a = ax.text(0.1, 0.5, "orders\n1,000 rows", bbox=dict(boxstyle="round"))
        b = ax.text(0.8, 0.7, "customers\n500 rows", bbox=dict(boxstyle="round"))
        c = ax.text(0.8, 0.2, "products", bbox=dict(boxstyle="round"))
        ax.text(0.5, 0.9, "a note, not a box")
        for target, style, label in ((b, "-", "customer_id"), (c, "--", "product_id")):
            arrow = ax.annotate("", xy=(0, 0.5), xycoords=target, xytext=(1, 0.5), textcoords=a,
                                arrowprops=dict(arrowstyle="-|>", linestyle=style))
            arrow.set_label(label)
        ax.annotate("a pointer", xy=(0.5, 0.5), xytext=(0.6, 0.6), arrowprops=dict(arrowstyle="->"))
        d = describe(fig)
        (s,) = only_series(d, "diagram")
        self.assertEqual([n["title"] for n in s["nodes"]], ["orders", "customers", "products"])
        self.assertEqual(s["nodes"][0]["text"], "orders\n1,000 rows")
        self.assertEqual(s["edges"], [
            {"from": "orders", "to": "customers", "label": "customer_id", "style": "solid"},
            {"from": "orders", "to": "products", "label": "product_id", "style": "dashed"}])

    def test_boxes_alone(self):
        fig, ax = plt.subplots()
        ax.axis("off")
        ax.text(0.5, 0.5, "only table", bbox=dict(boxstyle="round"))
        (s,) = only_series(describe(fig), "diagram")
        self.assertEqual((s["nodes"], s["edges"]), ([{"title": "only table", "text": "only table"}], []))
        # A boxed note on a chart with axes is a note, not a diagram.
        fig, ax = plt.subplots()
        ax.bar(["a", "b"], [1, 2])
        ax.text(0, 1.5, "peak", bbox=dict(boxstyle="round"))
        self.assertEqual(describe(fig)["kind"], "bar")


class PlotlyTests(unittest.TestCase):
    def test_bar(self):
        sums = SALES.groupby("region", as_index=False)["amount"].sum()
        d = plotly_desc(px.bar(sums, x="region", y="amount", title="Totals"))
        (s,) = only_series(d, "bar")
        self.assertEqual((d["title"], d["x_label"], d["y_label"]), ("Totals", "region", "amount"))
        self.assertEqual(s["categories"], list(sums.region))
        self.assertEqual(s["values"], list(sums.amount))
        self.assertEqual(d["axes"][0]["x_tick_labels"], list(sums.region))

    def test_horizontal_bar(self):
        (s,) = only_series(plotly_desc(go.Figure(go.Bar(x=[3, 4], y=["a", "b"], orientation="h"))),
                           "bar")
        self.assertEqual((s["categories"], s["values"], s["orientation"]),
                         (["a", "b"], [3.0, 4.0], "horizontal"))

    def test_line_with_dates_and_scatter(self):
        df = pd.DataFrame({"d": pd.date_range("2020-01-01", periods=3), "v": [1, 2, 3]})
        (s,) = only_series(plotly_desc(px.line(df, x="d", y="v")), "line")
        self.assertEqual(s["x"], ["2020-01-01T00:00:00", "2020-01-02T00:00:00",
                                  "2020-01-03T00:00:00"])
        self.assertEqual(s["y"], [1, 2, 3])
        self.assertEqual(plotly_desc(px.line(df, x="d", y="v"))["axes"][0]["x_tick_labels"], [])
        (s,) = only_series(plotly_desc(px.scatter(df, x="v", y="v")), "scatter")
        self.assertEqual(s["x"], [1, 2, 3])

    def test_histogram(self):
        data = RNG.normal(size=300)
        (s,) = only_series(plotly_desc(px.histogram(x=data, nbins=10)), "hist")
        self.assertEqual(sum(s["counts"]), 300)
        self.assertEqual(len(s["bin_edges"]), 11)
        (s,) = only_series(plotly_desc(px.histogram(SALES, x="region")), "bar")
        self.assertEqual(dict(zip(s["categories"], s["values"])),
                         SALES.region.value_counts().astype(float).to_dict())

    def test_pie(self):
        (s,) = only_series(plotly_desc(px.pie(names=["x", "y"], values=[1, 3])), "pie")
        self.assertEqual((s["labels"], s["values"]), (["x", "y"], [0.25, 0.75]))

    def test_box(self):
        df = pd.DataFrame({"g": ["p"] * 61 + ["q"] * 61,
                           "v": BoxTests.groups[0] + BoxTests.groups[1]})
        (s,) = only_series(plotly_desc(px.box(df, x="g", y="v")), "box")
        BoxTests.check(self, s["boxes"], BoxTests.groups[:2], ["p", "q"])

    def test_heatmap(self):
        corr = HeatmapTests.corr
        # px.imshow is broken with Debian 12's plotly 5.4 + numpy 1.24 (np.bool)
        fig = go.Figure(go.Heatmap(z=corr.values, x=list(corr.columns), y=list(corr.index)))
        (s,) = only_series(plotly_desc(fig), "heatmap")
        self.assertEqual((s["rows"], s["columns"]), (list("abcd"), list("abcd")))
        np.testing.assert_allclose(s["values"], corr.values)

    def test_mixed_subplots_empty_nan_and_cap(self):
        fig = make_subplots(rows=1, cols=2)
        fig.add_trace(go.Bar(x=["a"], y=[1]), row=1, col=1)
        fig.add_trace(go.Scatter(y=[1, np.nan, 3], mode="lines"), row=1, col=2)
        d = plotly_desc(fig)
        self.assertEqual(d["kind"], "mixed")
        self.assertEqual([a["kind"] for a in d["axes"]], ["bar", "line"])
        self.assertEqual(d["axes"][1]["series"][0]["y"], [1, None, 3])
        self.assertEqual(plotly_desc(go.Figure())["kind"], "empty")
        d = plotly_desc(go.Figure(go.Scatter(y=np.arange(5000.0))))
        self.assertEqual(len(d["axes"][0]["series"][0]["y"]), MAX_POINTS)
        self.assertTrue(d["truncated"])

    def test_odd_input_does_not_raise(self):
        for odd in (None, {}, {"data": [{"type": "bar", "x": 5}]},
                    {"data": [{"type": "sankey"}], "layout": {"title": "t"}}):
            d = describe_plotly(odd)
            json.dumps(d, allow_nan=False)
        self.assertEqual(describe_plotly({"data": [{"type": "bar", "x": 5}]})["axes"][0]["kind"],
                         "unknown")
        self.assertEqual(describe_plotly({"data": [{"type": "sankey"}]})["kind"], "unknown")

    def test_figure_object_accepted(self):
        d = describe_plotly(go.Figure(go.Bar(x=["a"], y=[2]), layout={"title": "t"}))
        self.assertEqual((d["kind"], d["title"]), ("bar", "t"))


if __name__ == "__main__":
    unittest.main()
