"""Spark integration (mapInArrow over statistics DataFrames); not built yet, see issue 6."""
