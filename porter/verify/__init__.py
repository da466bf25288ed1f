"""Numerical verification: specs, generated drivers, executors and comparison (issue 4)."""
