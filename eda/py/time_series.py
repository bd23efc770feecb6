date_column = None
value_column = None  # the numeric column summed per period (None: rows are counted only)
FREQUENCY = "MS"  # one point per period: h hour, D day, W-MON week, MS month, YS year
dated = df[date_column].notna()
period, period_starts = date_periods(df.loc[dated, date_column], FREQUENCY)
# Each period is the interval [start, next start), labelled by its start.
per_period = pd.DataFrame({"rows": np.bincount(period, minlength=len(period_starts))}, index=period_starts)
if value_column is not None:
    per_period["sum of " + value_column] = sum_per_code(df.loc[dated, value_column], period, len(period_starts))
