missing_share = pd.Series({c["name"]: c["missing"] / rows for c in column_info}, dtype=float)  # the profile's counts (out of core: over every row)
display(missing_share[missing_share > 0].sort_values(ascending=False).to_frame("missing share"))

missing_columns = []
shares = missing_share[missing_columns]
fig, ax = plt.subplots(figsize=(7, 0.3 * len(shares) + 1.5))
positions = range(len(shares))
ax.barh(positions, shares.values)
ax.set_yticks(positions)
ax.set_yticklabels([chart_label(column, 30) for column in shares.index])
ax.invert_yaxis()  # most missing on top
ax.set_xlim(0, 1)
ax.set_xlabel("share of rows missing")
ax.set_ylabel("column")
ax.set_title("Missing values by column")
fig.tight_layout()
plt.show()
