"""A ruleset loaded and checked: `extends` and card data (`Ruleset`), names, what each
name means (`Facts`), static types, lint rules.

Stage 4 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
