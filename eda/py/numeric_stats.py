numeric_columns = []
numeric = df[numeric_columns]
with np.errstate(invalid="ignore"):  # infinite values give NaN statistics, without a warning
    quartiles = numeric.quantile([0.25, 0.5, 0.75])  # linear interpolation
    numeric_stats = pd.DataFrame({
        "count": numeric.count(),
        "missing": numeric.isna().sum(),
        "mean": numeric.mean(),
        "std": numeric.std(),  # n - 1 in the denominator
        "min": numeric.min(),
        "25%": quartiles.loc[0.25],
        "50%": quartiles.loc[0.5],
        "75%": quartiles.loc[0.75],
        "IQR": quartiles.loc[0.75] - quartiles.loc[0.25],
        "max": numeric.max(),
        "skewness": numeric.skew(),  # G1
        "kurtosis": numeric.kurt(),  # G2, excess kurtosis
    })
numeric_stats.index.name = "column"
numeric_stats
