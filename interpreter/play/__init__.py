"""Games: the decision API (`Game`), agents and bots, search, deck lists, scenarios, saves
and logs.

Stage 7 of 9, lowest first: docs/architecture.md, tests/test_layout.py."""
