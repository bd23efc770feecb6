RELATIONSHIPS_MIME = "application/vnd.analyst.relationships+json"  # analyst reads the relationships from this output
summary = (f"Relationships: {len(relationships['tables']):,} tables, {len(relationships['relationships']):,} "
           f"relationships, {len(relationships['alerts']):,} alert(s)")
display({RELATIONSHIPS_MIME: relationships, "text/plain": summary}, raw=True)
