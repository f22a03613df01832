"""What every stage uses: the AST's node classes (and `Span`), diagnostics and their
codes, reading input files within their limits, and the protocol engines and drivers share
(`Decision`, `AnswerError`, the limits).

Stage 1 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
