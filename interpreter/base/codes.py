"""The registry of diagnostic codes: every message cgl can show has one of these.

Each code has a severity, a title, what it means, and an example of the mistake with
its fix. `docs/lint.md` is generated from this table (`python -m cgl.interpreter.base.codes`)
and a test keeps the two identical.
"""
from __future__ import annotations

import attrs


@attrs.frozen
class Code:
    code: str
    severity: str        # error | warning
    title: str
    explanation: str
    bad: str
    good: str


_CODES = [
    Code("E001", "error", "syntax error",
         "The text is not CGL: the message says what was expected at that point. For the common slips it "
         "says what CGL writes instead: `elif` for `elsif`, the keyword a misspelt word is closest to "
         "(`drew` → `draw`), a string not closed on its line, `and`/`or` for `&&`/`||`, no `;`, a `(` "
         "or a block left open.",
         'turn {\n  phase draw {\n    draw\n  }\n}',
         'turn {\n  phase draw {\n    draw 1\n  }\n}'),
    Code("E002", "error", "cannot read a file",
         "A ruleset, card data, scenario, log or save file is missing, unreadable or not of the right kind "
         "(a save, too, when a file of its game changed since, or when the game refuses one of its answers); "
         "or a file is named outside the project (an absolute path, a `..` out of the ruleset's folder, a "
         "symlink leading out), is not a plain UTF-8 text file, or is bigger than the limit (README, "
         "\"Security and limits\").",
         'cards from "mgt-card.yaml" { name: text }',
         'cards from "mgt-cards.yaml" { name: text }'),
    Code("E003", "error", "card data does not match its schema",
         "A card in the YAML file has a property the `cards` block does not declare, lacks one it "
         "declares, has a value of the wrong type or an enum value that does not exist, or a bad "
         "`count`. The position is in the YAML file.",
         '# cards.yaml\ncards:\n  - {name: Alice, typ: FIEND}',
         '# cards.yaml\ncards:\n  - {name: Alice, type: FIEND}'),
    Code("E004", "error", "unknown name",
         "A name, function, property, zone, procedure, phase or event that nothing defines (an "
         "event is defined by the engine, `draw`, `discard`, `deal`, `move`, `start of …`, `end of "
         "…`, or by an `emit` of the ruleset); a `rule … forbid TAG` whose tag is no action, reaction or "
         "`choose … as TAG` (it would forbid nothing), a `forbid enter|leave` of an unknown zone, or a "
         "`target(CARD, \"NAME\")` whose NAME no `target` declaration has. The "
         "help line suggests the closest defined name.",
         'if count(hnd(player)) > 0 { draw 1 }',
         'if count(hand(player)) > 0 { draw 1 }'),
    Code("E005", "error", "duplicate definition",
         "Two top-level definitions share a name (every definition — option, zone, def, trigger "
         "`as` name… — lives in one namespace), or a file redefines a name of the file it extends "
         "without `override`.",
         'def bonus = 1\ndef bonus = 2',
         'def bonus = 1\ndef big_bonus = 2'),
    Code("E006", "error", "bad extends, override or remove",
         "`override` or `remove` of a name the extended file does not define, more than one "
         "`extends`, or files that extend each other in a cycle.",
         'extends "mgt.cgl"\noverride def bonuss = 2',
         'extends "mgt.cgl"\noverride def bonus = 2'),
    Code("E007", "error", "bad option",
         "An option set from the command line (or a scenario) that the ruleset does not have, or a "
         "value outside its type or range.",
         'cgl run mgt -o rounds=99',
         'cgl run mgt -o rounds=4'),
    Code("E008", "error", "wrong type",
         "A value of one kind where another is needed: a zone where a number is expected, a card "
         "compared with a player or a number with a text, arithmetic on text, a card where a "
         "player is needed, a list or a zone as a condition (always true while not empty), a "
         "procedure used as a value, a definition that cannot change used with `set`.",
         'if count(stock) > hand(current) { draw 1 }',
         'if count(stock) > count(hand(current)) { draw 1 }'),
    Code("E009", "error", "wrong number of arguments",
         "A call gives a function, table, pattern or procedure more or fewer arguments than it "
         "takes.",
         'def holding(p) = count(hand(p))\ndef mine = holding()',
         'def holding(p) = count(hand(p))\ndef mine = holding(current)'),
    Code("E010", "error", "runtime error",
         "A rule failed while a game was played (a division by zero, a property of `none`, a "
         "lookup of a key a table does not have…). The position is the rule that failed. (A "
         "failure of cgl's own code is never reported as E010: the command says \"internal "
         "error\", exits with 3, and the fault is cgl's to fix.)",
         'say "{24 / (turn_no - 1)}"',
         'if turn_no > 1 { say "{24 / (turn_no - 1)}" }'),
    Code("E011", "error", "rules that run away",
         "A chain of triggers, a `while` loop, a match or a round that never ends, or a game that "
         "used up its budget of steps (statements run and turns played: 200,000 unless `--max-steps` "
         "says otherwise). The position is the trigger, loop, round, match or statement where it ran "
         "away; a chain's message names the chain.",
         'on ping as echo { emit ping() }',
         'on ping if count(stock) > 0 as echo { draw 1  emit ping() }'),
    Code("E012", "error", "invariant broken",
         "A card is lost or duplicated, or an `invariant` the rules declare does not hold at the "
         "end of a turn (checked in tests and with `cgl run --check`).",
         'invariant small: count(players where count(hand(it)) > 8) = 0\n'
         'turn { phase p { draw 1 } }',
         'invariant small: count(players where count(hand(it)) > 8) = 0\n'
         'turn { phase p { draw 1  if count(hand(current)) > 8 { discard random(hand(current)) } } }'),
    Code("E013", "error", "bad scenario",
         "A scenario file uses an unknown key, zone, card or player, or scripts dice or random "
         "picks that do not fit.",
         'setup:\n  zones:\n    hand P9: [Alice]',
         'setup:\n  zones:\n    hand P2: [Alice]'),
    Code("E014", "error", "bad player count",
         "A game was asked for more or fewer players than its `players` range allows.",
         'cgl run mgt --players 9',
         'cgl run mgt --players 6'),
    Code("E015", "error", "the deck cannot deal for every player count",
         "Dealing the stated number of cards to the largest number of players the game allows "
         "needs more cards than the deck has.",
         'game "G" { players 2..6 }   # 40 cards in the deck\nround { start { deal 8 to hand } }',
         'game "G" { players 2..5 }   # 40 cards: 5 players × 8\nround { start { deal 8 to hand } }'),
    Code("E016", "error", "an illegal deck",
         "A deck list breaks one of the ruleset's deck-building rules (`deck { check … each … }`). "
         "The position is the entry of the deck list that breaks an `each` rule, or its `cards:` "
         "for a `check` rule; the message is the rule's own.",
         '# kozyablo deck list\ncards:\n  - {name: Pozorny Archer, copies: 4}',
         '# kozyablo deck list\ncards:\n  - {name: Pozorny Archer, copies: 3}'),
    Code("E017", "error", "beyond a limit",
         "The rules are bigger than cgl allows, so that no ruleset can hang it or exhaust its memory: "
         "blocks and brackets nested more than 64 deep, rules more than 200 levels deep (a block is "
         "about two levels, each operator of a chain like `1 + 1 + … + 1` one), a number larger than 10^18 (written, or computed while a game is "
         "played), a roll of more than 1,000 dice, a list of more than 100,000 items, a text of more than 1,000,000 characters, or more than 100,000 calls of defs and tables while one "
         "step runs (a def calling itself twice each time). The position is where the limit was passed. (A game that runs too long is "
         "E011.) The limits are listed in docs/language.md, \"Limits\".",
         'repeat 40 { set x = x * x }',
         'repeat 40 { set x = min([x * 2, 1000000]) }'),
    Code("E018", "error", "a declaration that contradicts itself",
         "Two attributes of one zone say different things of the same: `shared`, `per player` and "
         "`per card` (whose the zone is), `ordered` and `unordered`, `public`, `owner` and `hidden` "
         "(who sees its cards), or two roles (`as …`). Attributes may come in any order, so neither "
         "wins: keep the one you mean. The position is the second; the message names the first. Or a "
         "variable's sight does not fit it: `private` on a global or card variable (no one player can be "
         "the only one to read it), or a score that is not public.",
         'zone hand: per player, owner, hidden',
         'zone hand: per player, owner'),
    Code("E019", "error", "a hint that reads what its player cannot see",
         "A `prefer` is its player's own judgement, so it reads only what that player sees: its own "
         "zones and the public ones, the cards it was shown (`reveal … to`) where they still lie, how "
         "many cards the others hold, and the variables it may read (`public` ones, its own `private` "
         "ones). Lint refuses what no player ever sees (an `internal` variable, the cards of a `hidden` "
         "zone); the rest (another player's hand or `private` variable) stops the game where the hint "
         "reads it, located at the hint. Record what a player learns in a `private var` and let the "
         "hint read that (examples/priest.cgl).",
         'choose o in [1, 2] by seat(1) prefer first(hand(seat(2))).rank * o',
         'choose o in [1, 2] by seat(1) prefer count(hand(seat(2))) * o'),
    Code("W101", "warning", "unused definition",
         "A definition (def, table, pattern, procedure, variable, zone, option, enum) that nothing "
         "refers to. Remove it, or use it.",
         'def bonus = 2          # never used',
         '# (removed)'),
    Code("W102", "warning", "unreachable code",
         "Statements after an `end`, `win` or `lose` in the same block can never run; neither can "
         "the phases after a phase that always ends the turn.",
         'phase draw { end turn  draw 1 }',
         'phase draw { draw 1  end turn }'),
    Code("W103", "warning", "a trigger or reaction that can never fire",
         "It waits for a kind of card move no statement makes (`on discard` where nothing "
         "discards), or for cards moving to a zone that no card ever enters by that kind of move. "
         "(An event nothing raises at all, such as a misspelt `on drow`, is an error: E004.)",
         'on discard as tidy { say "tidied" }   # no statement discards',
         'on discard as tidy { say "tidied" }\n…\ndiscard c'),
    Code("W104", "warning", "a condition no card can meet",
         "A comparison of a card property with a value that no card of the data has "
         "(`type = \"BEASTMEN\"` when the data says BEASTMAN), so the rule around it never applies.",
         'derive key = if type = "BEASTMEN" then family else type',
         'derive key = if type = "BEASTMAN" then family else type'),
    Code("W105", "warning", "a choice that can never have an option",
         "A `choose` over a list that is always too short for what it asks (an empty literal list, "
         "or all the cards filtered by a property no card has).",
         'choose c in all_cards where type = "DRAGONS" { … }',
         'choose c in all_cards where type = "DRAGON" { … }'),
    Code("W106", "warning", "a table row that can never be used",
         "A row of a `table` whose condition repeats an earlier row's, so the earlier one always "
         "answers first.",
         'table pts(n) {\n  | n >= 4 -> 3\n  | n >= 4 -> 5\n  | else -> 0\n}',
         'table pts(n) {\n  | n >= 8 -> 5\n  | n >= 4 -> 3\n  | else -> 0\n}'),
    Code("W108", "warning", "a hand pattern the deck can never make",
         "A shape of a `pattern` needs a group of more cards than the deck holds under any one "
         "label (judged from each card's labels at the start of a game), so that way of winning "
         "or scoring never happens.",
         'pattern winning(p) { cards hand(p)  labels [suit]  shape flush: 14 }   # 13 of each suit',
         'pattern winning(p) { cards hand(p)  labels [suit]  shape flush: 13 }'),
    Code("W109", "warning", "a table row no group of the deck can satisfy",
         "A row asks for a group of N cards (`g.size = N`, `g.size >= N`) under labels (`g.label in "
         "[…]`, `g.label = …`) that no N cards of the deck carry (judged from the labels of the "
         "ruleset's patterns at the start of a game), so the row never scores. When the row is "
         "kept on purpose (the rules say so), silence it with `# cgl: allow W109` on its line.",
         '| g.size = 8 and g.label in ["orphans"] -> 12   # the deck has 7 orphans',
         '| g.size = 7 and g.label in ["orphans"] -> 12'),
    Code("W110", "warning", "a turn given where no turn follows",
         "A `give turn to` or `give extra turn to` in the match's `end` block or an `on end of "
         "game` trigger: the game is over, so it gives nothing.",
         'match { rounds 3  end { give turn to first(players) } }',
         'round { end { give turn to first(players) } }   # the next round starts with them'),
    Code("W111", "warning", "players knocked out of a round that never ends for it",
         "The rules `knock out` players, but the round's `until` never reads `players` (nor a def "
         "that does): a round goes on when one player is left in it, who then plays alone. Say "
         "when a round ends, as `count(players) < 2` does (or silence it with `# cgl: allow W111` "
         "when the rules play on).",
         'round { until count(deck) = 0 }      # with `knock out foe` in an action',
         'round { until count(players) < 2 or count(deck) = 0 }'),
    Code("W112", "warning", "a required part that can never fall short",
         "A `require { … }` block with no card statement (`move`, `draw`, `deal`, `discard`, "
         "`swap`), no `choose` and no procedure call in it: nothing in it can fall short, so it is "
         "always done in full, its `then` always runs and `possible` always finds it done. Put "
         "the part the effect requires inside it.",
         'require { set p.points += 1 } then { draw 1 to hand(p) }',
         'require { discard c } then { set p.points += 1 }'),
    Code("W113", "warning", "a target never named, or never read",
         "A `target` declaration (section 4.11b) names the target of a card's effect only inside "
         "`choose targets of CARD by P { … }`, and the effect reads it with `target(CARD)`: a "
         "declaration with no `choose targets of` in the rules is never named, one whose target no "
         "`target(…)` reads is named for nothing (when every read names its declaration, "
         "`target(CARD, \"NAME\")`, one that no read names), and a `target(…)` read in rules that "
         "declare no target, or never name one, is always `none`.",
         'target rob if name = "Thief": q in others(player)\n'
         'procedure effect(p, c) { move random(hand(first(others(p)))) to hand(p) }',
         'target rob if name = "Thief": q in others(player)\n'
         'procedure effect(p, c) { choose targets of c by p { move random(hand(target(c))) to hand(p) } }'),
    Code("W114", "warning", "a choice whose count can never fit",
         "A `choose LO..HI` whose bounds, known without playing (literals, options, data), leave no "
         "count to pick: LO above HI, a bound below zero counting as zero. The choice is never made "
         "and its `else` block always runs. (Bounds known only as the game is played are checked "
         "then: such a choice runs its `else` block, as with too few options.)",
         'option keep: int = 2\nchoose keep..1 cs in hand(current) { discard cs }',
         'option keep: int = 2\nchoose 1..keep cs in hand(current) { discard cs }'),
    Code("W107", "warning", "a local name hides a card property",
         "A `let`, loop, choice or parameter named like a card property: inside `where` and "
         "triggers the bare name then means the local, not the card's property.",
         'for type in players { … hand(type) where type = "FIEND" … }',
         'for p in players { … hand(p) where type = "FIEND" … }'),
]

CODES: dict[str, Code] = {c.code: c for c in _CODES}


def markdown() -> str:
    """The text of docs/lint.md."""
    out = ["# Diagnostics", "",
           "Every message cgl shows carries one of these codes. Errors stop `cgl run` and make "
           "`cgl lint` exit 1; warnings are reported by `cgl lint` (exit 0, or 1 with `--strict`).",
           "", "A warning that is wanted (say, a rule kept exactly as the game's text has it) is "
           "silenced by a comment on its line: `# cgl: allow W109` (several codes: "
           "`# cgl: allow W101, W109`).",
           "", "This file is generated from `interpreter/base/codes.py` "
           "(`python -m cgl.interpreter.base.codes > docs/lint.md`); a test keeps them identical. "
           "`cgl explain CODE` prints a code's section.", "",
           "| code | severity | title |", "|---|---|---|"]
    for c in _CODES:
        out.append(f"| [{c.code}](#{c.code.lower()}) | {c.severity} | {c.title} |")
    for c in _CODES:
        out += ["", page(c.code)]
    return "\n".join(out) + "\n"


def page(code: str) -> str:
    """A code's section of docs/lint.md (what `cgl explain CODE` prints)."""
    c = CODES[code]
    return "\n".join([f"## {c.code}", "", f"**{c.title}** ({c.severity})", "", c.explanation, "",
                      "Mistake:", "", "```cgl", c.bad, "```", "", "Fix:", "", "```cgl", c.good, "```"])


if __name__ == "__main__":  # pragma: no cover
    print(markdown(), end="")
