OVERLAID = ("numeric-shift", "category-shift", "new-category", "vanished-category")
drifted = list(dict.fromkeys(c["column"] for c in changes if c["check"] in OVERLAID and c["level"] != "info"))
if not drifted:
    print("No column's values shifted past a warn threshold: no overlay to draw.")
else:
    fig, axes = chart_grid(len(drifted))
    for ax, column in zip(axes, drifted):
        a, b = compared[column]
        if "numbers" in a:
            da, db = Distribution(a["numbers"]), Distribution(b["numbers"])
            low = min(da.quantile(0.01), db.quantile(0.01))
            high = max(da.quantile(0.99), db.quantile(0.99))
            edges = np.linspace(low, high, HIST_BINS + 1) if high > low else np.array([low - 0.5, low + 0.5])
            ax.stairs(da.shares(edges), edges, label="baseline")  # the first and last bins hold the rows beyond them
            ax.stairs(db.shares(edges), edges, label="new")
            ax.set_xlabel(chart_label(column) + " (1st to 99th percentile)")
        else:
            va, vb = a["values"], b["values"]
            names, old, new = aligned_counts(dict(va["top"]), dict(vb["top"]), va["other_rows"], vb["other_rows"],
                                             va["complete"], vb["complete"])
            old, new = old / max(1, old.sum()), new / max(1, new.sum())
            shown = sorted(range(len(names)), key=lambda i: (-max(old[i], new[i]), names[i]))[:10]
            x = np.arange(len(shown))
            ax.bar(x - 0.2, old[shown], 0.4, label="baseline")
            ax.bar(x + 0.2, new[shown], 0.4, label="new")
            ax.set_xticks(x, [chart_label(names[i], 15) for i in shown], rotation=45, ha="right")
            ax.set_xlabel(chart_label(column))
        ax.set_ylabel("share of rows")
        ax.set_title(chart_label(column))
        ax.legend()
    fig.suptitle("Baseline and new data: the columns that shifted")
    fig.tight_layout()
    plt.show()
