"""Kernel sources: numba code loaded from a copy in the kernel cache, never imported from here."""
