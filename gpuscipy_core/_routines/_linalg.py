"""Products on cuBLAS: matmul, dot, vdot, inner, outer, tensordot, einsum, kron."""

__all__ = []
