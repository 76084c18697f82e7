"""Measurement harnesses behind the `memory_eval` and `memory_bench` commands."""
