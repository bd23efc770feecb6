overview = pd.DataFrame({
    "column": [c["name"] for c in column_info],
    "dtype": [c["dtype"] for c in column_info],
    "kind": [c["kind"] for c in column_info],
    "missing": [c["missing"] for c in column_info],
    "missing %": [100 * c["missing_share"] for c in column_info],
    "distinct": [c["distinct"] for c in column_info],
    "sample values": [", ".join(c["sample"]) for c in column_info],
})
