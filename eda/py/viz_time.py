trend_date = None
trend_value = None
trend_group = None
TREND_FREQUENCY = "MS"  # one point per period: h hour, D day, W-MON week, MS month, YS year
TREND_WORD = "month"  # the period, in the table's and the chart's labels
TREND_LINES = 6  # groups drawn as their own line; the rest are summed as "other"
dated = df[trend_date].notna()
group = df.loc[dated, trend_group]
largest = list(group.value_counts().index[:TREND_LINES])
# Each row's line: its group's place among the largest, or "other" after them.
line_names = largest + ["other"]
group_codes, group_names = pd.factorize(group)  # code -1: missing
line_of_group = pd.Index(largest).get_indexer(group_names)  # -1: not among the largest
line_of_group[line_of_group < 0] = len(largest)
line = np.append(line_of_group, len(largest))[group_codes]  # a missing group (code -1) is "other" too
# Each period is the interval [start, next start), labelled by its start.
period, period_starts = date_periods(df.loc[dated, trend_date], TREND_FREQUENCY)
sums = sum_per_code(df.loc[dated, trend_value], period * len(line_names) + line, len(period_starts) * len(line_names))
trend = pd.DataFrame(sums.reshape(len(period_starts), len(line_names)), index=period_starts,
                     columns=pd.Index(line_names, name="line"))
# Periods without rows and an empty "other" are left out, as a groupby by period and line leaves them.
trend = trend[np.bincount(period, minlength=len(period_starts)) > 0]
if not (line == len(largest)).any():
    trend = trend.iloc[:, :len(largest)]  # by position: true/false groups would select rows
trend.index.name = TREND_WORD + " starting"
display(trend)

fig, ax = plt.subplots(figsize=(10, 4.5))
for name in trend.columns:
    ax.plot(trend.index, trend[name], marker="o", markersize=3, label=chart_label(name, 25))
ax.set_title(chart_label(f"Sum of {trend_value} per {TREND_WORD} by {trend_group}", 70))
ax.set_xlabel(chart_label(trend_date) + " (" + TREND_WORD + " starting)")
ax.set_ylabel(chart_label("sum of " + trend_value, 40))
ax.ticklabel_format(axis="y", style="plain", useOffset=False)
ax.legend(title=chart_label(trend_group, 25), fontsize=8, loc="center left", bbox_to_anchor=(1, 0.5))
fig.tight_layout()
plt.show()
