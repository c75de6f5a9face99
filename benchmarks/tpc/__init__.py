"""Row groups skipped on TPC-DS and TPC-H: prunekit against DataFusion, checked with DuckDB."""
