"""What each seat may know (issue 29), declared once in the language.

First: who sees a zone's cards is said by one attribute. `owner, hidden` used to mean
whichever came last (a hand its owner could not see, with `hidden` last), silently; now
two attributes that say different things of the same are an error (E018), whatever
their order."""
from __future__ import annotations

import pytest

from cgl.interpreter.base.diagnostics import CglError

BODY = """
game "T" {{ players 2..4 }}
zone deck: shared, hidden, as deck
zone {decl}
turn {{ phase a {{ end game }} }}
"""


@pytest.mark.parametrize("attrs,first,second", [
    ("per player, owner, hidden", "owner", "hidden"),
    ("per player, hidden, owner", "hidden", "owner"),
    ("per player, owner, public", "owner", "public"),
    ("shared, public, hidden", "public", "hidden"),
    ("shared, per player", "shared", "per player"),
    ("per player, per card", "per player", "per card"),
    ("ordered, unordered", "ordered", "unordered"),
    ("per player, as hand, as discard", "as hand", "as discard"),
])
def test_contradicting_zone_attributes_are_an_error(make_rules, attrs, first, second):
    with pytest.raises(CglError) as e:
        make_rules(BODY.format(decl="hand: " + attrs), header=False)
    d = e.value.diagnostics[0]
    assert d.code == "E018"
    assert f"`{first}` and `{second}`" in d.message
    line = "zone hand: " + attrs
    assert d.span.line == 4 and line[d.span.column - 1:].startswith(second)   # the caret on the second
    assert d.hint.startswith(f"keep one of `{first}` and `{second}`")
    assert first in d.related[0]


@pytest.mark.parametrize("attrs,visibility", [
    ("per player, owner", "owner"), ("hidden, per player", "hidden"), ("per player", "public"),
    ("per player, owner, owner", "owner"),   # (said twice, it says one thing)
])
def test_one_visibility_is_what_the_zone_has(make_rules, attrs, visibility):
    rs = make_rules(BODY.format(decl="hand: " + attrs), header=False)
    assert rs.zones["hand"].visibility == visibility
