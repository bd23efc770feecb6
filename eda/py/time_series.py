date_column = {{DATE}}
{{VALUE_LINE}}
FREQUENCY = {{FREQ}}  # {{FREQ_COMMENT}}
dated = df[date_column].notna()
dates = pd.DatetimeIndex(df.loc[dated, date_column])
# Each period is the interval [start, next start), labelled by its start.
per_period = pd.DataFrame({"rows": pd.Series(1, index=dates).resample(FREQUENCY, closed="left", label="left").size()})
if value_column is not None:
    values = pd.Series(df.loc[dated, value_column].to_numpy(), index=dates)
    per_period["sum of " + value_column] = values.resample(FREQUENCY, closed="left", label="left").sum()
{{CHART}}
