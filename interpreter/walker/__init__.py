"""The tree walker, the definition of what a ruleset means: expressions compiled to
closures, statements, the `Engine` and the parts both engines share (continuous rules,
forks, `possible`, turn order).

Stage 5 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
