"""The rules' values at run time: the game state, what the operators mean on values, the
registry of built-ins (read by the checks and run by both engines), hand patterns.

Stage 3 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
