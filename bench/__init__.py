"""Benchmarks, each timed beside a baseline in the same run and reported as a ratio."""
