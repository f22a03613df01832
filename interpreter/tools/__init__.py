"""Tools for a ruleset's author: the formatter (`cgl fmt`) and the language server (`cgl
lsp`).

Stage 8 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
