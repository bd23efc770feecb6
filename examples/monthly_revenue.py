# %% Load the sales data once; the kernel keeps `df` for the cells below.
df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
print(f"{len(df):,} orders, {df['date'].min():%Y-%m-%d} to {df['date'].max():%Y-%m-%d}")
print("missing discounts:", int(df["discount"].isna().sum()))

# %% Revenue by month: total revenue = sum of revenue per calendar month.
monthly = df.groupby(df["date"].dt.to_period("M"))["revenue"].sum()
peak = monthly.idxmax()
print(f"peak month: {peak} with revenue {monthly.max():,.2f}")
fig, ax = plt.subplots(figsize=(10, 4))
monthly.plot.bar(ax=ax, color="#4C72B0")
ax.set_title("Total revenue by month")
ax.set_xlabel("month")
ax.set_ylabel("revenue")
plt.show()

# %% Revenue by region and channel.
df.pivot_table(index="region", columns="channel", values="revenue", aggfunc="sum").round(2)
