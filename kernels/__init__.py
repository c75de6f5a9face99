"""Statistics programs compiled into Numba kernels and evaluated over Arrow statistics."""
