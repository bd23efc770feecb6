trend_date = {{DATE}}
trend_value = {{VALUE}}
trend_group = {{CATEGORY}}
TREND_FREQUENCY = {{FREQ}}  # {{FREQ_COMMENT}}
TREND_LINES = {{LINES}}  # groups drawn as their own line; the rest are summed as "other"
dated = df[trend_date].notna()
group = df.loc[dated, trend_group]
largest = list(group.value_counts().index[:TREND_LINES])
lines = pd.DataFrame({"date": df.loc[dated, trend_date], "value": df.loc[dated, trend_value],
                      "line": group.astype(object).where(group.isin(largest), "other")})
# Each period is the interval [start, next start), labelled by its start.
periods = pd.Grouper(key="date", freq=TREND_FREQUENCY, closed="left", label="left")
trend = lines.groupby([periods, "line"])["value"].sum().unstack(fill_value=0)
trend = trend[largest + (["other"] if "other" in trend.columns else [])]
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
