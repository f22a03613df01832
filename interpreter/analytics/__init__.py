"""Batches of games and their reports: simulation, statistics, summaries, skill,
comparison.

Stage 9 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
