"""Benchmarks of the verification engine on real labelled dialogue data (not shipped)."""
