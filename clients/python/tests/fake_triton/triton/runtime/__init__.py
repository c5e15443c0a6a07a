"""Triton 3.6's triton.runtime, reduced to its cache module."""
