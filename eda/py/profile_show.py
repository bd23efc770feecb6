summary = f"Data profile: {rows:,} rows × {len(df.columns):,} columns, {len(alerts)} alert(s)"
display({PROFILE_MIME: profile, "text/plain": summary}, raw=True)
