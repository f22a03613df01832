"""CGL text to the AST: the one Transformer from parse tree to AST (with `cgl.grammar`'s
parser) and syntax errors in words.

Stage 2 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
