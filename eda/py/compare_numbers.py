shifts = [c for c in changes if c["check"] == "numeric-shift"]
shift_tests = pd.DataFrame({
    "W / σ": [c["value"] for c in shifts],
    "KS D": [c["numbers"]["ks"] for c in shifts],
    "KS p-value": [c["p_value"] for c in shifts],
    "PSI": [c["numbers"]["psi"] for c in shifts],
    "level": [c["level"] for c in shifts],
}, index=pd.Index([c["column"] for c in shifts], name="column"))
deltas = []
for c in shifts:
    a, b = (Distribution(side["numbers"]) for side in compared[c["column"]])
    nan = lambda x: math.nan if x is None else x  # a statistic the profile could not compute (infinite values)
    for statistic, old, new in [("mean", nan(a.mean), nan(b.mean)), ("std", nan(a.std), nan(b.std))] + [
            (f"Q({p:g})", float(a.quantile(p)), float(b.quantile(p))) for p in (0.05, 0.25, 0.5, 0.75, 0.95)]:
        deltas.append((c["column"], statistic, old, new, new - old, (new - old) / abs(old) if old else math.nan))
numeric_deltas = pd.DataFrame(deltas, columns=["column", "statistic", "baseline", "new", "Δ", "Δ / |baseline|"]
                              ).set_index(["column", "statistic"])
display(shift_tests)
numeric_deltas
