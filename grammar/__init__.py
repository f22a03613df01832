"""The CGL grammar (`cgl.lark`) and its parser, built once per process."""
from __future__ import annotations

import functools

from lark import Lark


@functools.lru_cache(maxsize=None)
def parser() -> Lark:
    """The LALR parser for whole files (`start`) and for lone expressions (`expr`)."""
    return Lark.open_from_package(
        "cgl.grammar",
        "cgl.lark",
        parser="lalr",
        start=["start", "expr"],
        propagate_positions=True,
        strict=True,
        maybe_placeholders=True,
        # Lark keeps the built tables in the user's temp folder, keyed by a hash of the
        # grammar and these options: start-up drops from ~0.6 s to a few ms. Nothing is
        # written into the installed package.
        cache=True,
    )
