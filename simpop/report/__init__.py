"""Reading stored records back: aggregates, intervals, summaries."""
