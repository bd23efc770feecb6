numeric_columns = []
exact = pd.DataFrame([numeric_moments.get(column, {"count": 0}) for column in numeric_columns], index=numeric_columns)
with np.errstate(invalid="ignore"):  # infinite values give NaN statistics, without a warning
    quartiles = df[numeric_columns].quantile([0.25, 0.5, 0.75])  # ≈: of the sample df, linear interpolation
numeric_stats = pd.DataFrame({
    "count": exact["count"],
    "missing": pd.Series({column: missing[column] for column in numeric_columns}),
    "mean": exact.get("mean"),
    "std": exact.get("std"),  # n - 1 in the denominator
    "min": exact.get("min"),
    "25% ≈": quartiles.loc[0.25],
    "50% ≈": quartiles.loc[0.5],
    "75% ≈": quartiles.loc[0.75],
    "IQR ≈": quartiles.loc[0.75] - quartiles.loc[0.25],
    "max": exact.get("max"),
    "skewness": exact.get("skew"),  # G1
    "kurtosis": exact.get("kurt"),  # G2, excess kurtosis
}, index=numeric_columns)
numeric_stats.index.name = "column"
numeric_stats
