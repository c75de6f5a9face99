"""prunekit: decide which containers a query can skip from their statistics alone."""
