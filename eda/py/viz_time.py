trend_date = {{DATE}}
trend_value = {{VALUE}}
trend_group = {{CATEGORY}}
TREND_FREQUENCY = {{FREQ}}  # {{FREQ_COMMENT}}
TREND_LINES = {{LINES}}  # groups drawn as their own line; the rest are summed as "other"
dated = df[df[trend_date].notna()]
largest = dated[trend_group].value_counts().index[:TREND_LINES]
line_of = dated[trend_group].where(dated[trend_group].isin(largest), "other").astype(str)
# Each period is the interval [start, next start), labelled by its start.
periods = pd.Grouper(key=trend_date, freq=TREND_FREQUENCY, closed="left", label="left")
trend = dated.assign(line=line_of).groupby([periods, "line"])[trend_value].sum().unstack(fill_value=0)
trend = trend[[str(name) for name in largest] + (["other"] if "other" in trend.columns else [])]
trend.index.name = "{{WORD}} starting"
display(trend)

fig, ax = plt.subplots(figsize=(10, 4.5))
for name in trend.columns:
    ax.plot(trend.index, trend[name], marker="o", markersize=3, label=chart_label(name, 25))
ax.set_title(chart_label(f"Sum of {trend_value} per {{WORD}} by {trend_group}", 70))
ax.set_xlabel(chart_label(trend_date) + " ({{WORD}} starting)")
ax.set_ylabel(chart_label("sum of " + trend_value, 40))
ax.ticklabel_format(axis="y", style="plain", useOffset=False)
ax.legend(title=chart_label(trend_group, 25), fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
fig.tight_layout()
plt.show()
