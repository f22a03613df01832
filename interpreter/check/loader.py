"""Load a ruleset: parse its file (and the files it extends), merge the definitions,
read and check its card data, and settle the options.

The result, :class:`Ruleset`, is immutable and shared by every game played with it.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
from importlib import resources
from typing import Any, Optional

import attrs

from ..base import ast as A
from ..parse.build import parse
from ..base.diagnostics import CglError, Diagnostic, did_you_mean, error, remember_source
from ..base.files import (MAX_CARDS, MAX_COPIES, MAX_SOURCE_BYTES, MarkedDict, check_file, inside, load_yaml,
                          one_newline, project_roots, read_text, resolve_ref)

BASE_TYPES = {"int", "text", "bool"}


@attrs.define(eq=False)
class Card:
    """One physical card: its id in the game and its properties from the data.

    Cards belong to the ruleset and never change, so copying a game state shares them.
    """

    id: int
    name: str
    props: dict

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        return f"<card {self.id} {self.name}>"


@attrs.define
class Ruleset:
    """Everything a game needs, merged and checked; shared by every game played with it."""

    path: str
    game: A.Game
    options: dict            # name -> A.Option
    option_values: dict      # name -> value (defaults, then what the user set)
    enums: dict              # name -> tuple of members
    enum_members: dict       # member -> enum name
    cards_decl: Optional[A.Cards]
    cards: list              # of Card
    tables: dict             # data tables from YAML: name -> dict
    derives: dict            # name -> A.Derive
    zones: dict              # name -> A.Zone
    vars: dict               # name -> A.Var
    defs: dict               # name -> A.Def
    procedures: dict
    table_decls: dict        # name -> A.Table
    patterns: dict
    setup: Optional[A.Setup]
    match: Optional[A.MatchDecl]
    round: Optional[A.RoundDecl]
    turn: Optional[A.TurnDecl]
    triggers: list
    reactions: list
    actions: list
    rules: list
    invariants: list
    deck: Optional[A.DeckDecl]
    items: list              # every merged declaration, in order
    sources: list            # the files read, base first
    # what the resolver decided about its names, and the caches both engines keep with it
    # (a resolve.Facts, made on first use by resolver.facts(rs); shared by every game)
    analysis: Optional[Any] = attrs.field(default=None, repr=False, eq=False)
    # id(A.Name node) -> resolver.Use: what each use of a name means (check/names.py, once)
    uses: Optional[dict] = attrs.field(default=None, repr=False, eq=False)
    checks: list = attrs.field(factory=list)   # A.Check, in declaration order
    targets: list = attrs.field(factory=list)  # A.TargetDecl, in declaration order (`choose targets of`)
    estimate: Optional[A.Estimate] = None      # `estimate p: …` (for search bots)
    shows: list = attrs.Factory(list)          # `show NAME for p: …` (on every player's table)
    roots: tuple = ()                          # the project's folders (files.project_roots): what it may read
    # the ruleset's own events: name -> the fields `emit` gives it (every `emit NAME(…)` of
    # every declaration, found once: names, the resolver, statistics and the LSP read this)
    emits: dict = attrs.field(factory=dict)
    # card name -> the real path of its picture (the card data's `image:` or `images:`): a
    # table shows it; the rules never read it (docs/language.md section 11)
    images: dict = attrs.field(factory=dict)

    @property
    def title(self) -> str:
        return self.game.title

    def zone_with_role(self, role: str) -> Optional[A.Zone]:
        for z in self.zones.values():
            if z.role == role:
                return z
        return None

    @property
    def score(self) -> Optional[tuple]:
        """(the player variable that is the score, "high" or "low"): the one declared
        `as score` (the highest leads) or `as low score` (the lowest leads); in a ruleset
        that declares none, `points` if the players have it (the highest leading); else None."""
        for v in self.vars.values():
            if v.role in SCORE_ROLES:
                return v.name, SCORE_ROLES[v.role]
        if "points" in self.player_vars():
            return "points", "high"
        return None

    def card_vars(self):
        return {n: v for n, v in self.vars.items() if v.scope == "card"}

    def player_vars(self):
        return {n: v for n, v in self.vars.items() if v.scope == "player"}

    def global_vars(self):
        return {n: v for n, v in self.vars.items() if v.scope == "global"}


def _emits(items) -> dict:
    """The events the declarations `emit`, each with the fields it is given anywhere."""
    out: dict = {}
    for item in items:
        for n in A.walk(item):
            if isinstance(n, A.Emit):
                out.setdefault(n.name, set()).update(k for k, _ in n.fields)
    return {name: frozenset(fields) for name, fields in sorted(out.items())}


#: What a variable may be declared as (`var points per player = 0 as score`): the score,
#: and which way it leads.
SCORE_ROLES = {("score",): "high", ("low", "score"): "low"}


#: What a zone may be declared as (`zone stock: shared, hidden, as deck`): the default zone
#: of `draw` and `deal` (deck), of `draw`'s cards (hand) and of `discard` (discard).
ZONE_ROLES = ("deck", "hand", "discard")


def _check_roles(rs) -> None:
    """`as deck|hand|discard` on one zone each; `as score` / `as low score`: a word the
    language knows, on a player variable, once."""
    taken: dict = {}
    for z in rs.zones.values():
        if z.role is None:
            continue
        if z.role not in ZONE_ROLES:
            raise error("E004", f"a zone cannot be declared `as {z.role}`", z.span,
                        hint=did_you_mean(z.role, ZONE_ROLES) or "a zone's role is `as deck`, `as hand` or "
                                                                 "`as discard`")
        if z.role in taken:
            raise error("E005", f"`{z.name}` is declared `as {z.role}`, and so is `{taken[z.role]}`", z.span,
                        hint=f"one zone is the game's {z.role}: keep `as {z.role}` on one of them")
        taken[z.role] = z.name
    declared = None
    for v in rs.vars.values():
        if v.sight == "private" and v.scope != "player":
            raise error("E018", f"`{v.name}` is {'a card' if v.scope == 'card' else 'a global'} variable, so no "
                        "one player can be the only one to read it", v.span,
                        hint=f"`private` is for what each player knows alone: `private var {v.name} per player "
                             "= …`; say `internal` for the rules' own bookkeeping")
        if v.role is not None and v.sight != "public":
            raise error("E018", f"`{v.name}` is the score, which every player reads, and `{v.sight}`", v.span,
                        hint="leave the score public: drop `" + v.sight + "`")
        if v.role is None:
            continue
        words = " ".join(v.role)
        if v.role not in SCORE_ROLES:
            raise error("E004", f"a variable cannot be declared `as {words}`", v.span,
                        hint="a player variable can be the score: `as score` (the highest leads) or "
                             "`as low score` (the lowest leads)")
        if v.scope != "player":
            raise error("E008", f"`{v.name}` is {'a card' if v.scope == 'card' else 'a global'} variable, so it "
                        f"cannot be the score", v.span, hint=f"the score is each player's: `var {v.name} per player "
                                                              f"= … as {words}`")
        if declared is not None:
            raise error("E005", f"`{v.name}` is declared the score, and so is `{declared.name}`", v.span,
                        hint="a game has one score: keep `as score` on one of them")
        declared = v


# ---------------------------------------------------------------- finding files

def packaged_rulesets() -> dict[str, str]:
    """Names of the rulesets shipped inside the package (`mgt`, `mgt-v0.1`, …)."""
    out = {}
    try:
        for entry in resources.files("cgl.rulesets").iterdir():
            if entry.name.endswith(".cgl"):
                out[entry.name[:-4]] = str(entry)
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    return out


def resolve(name_or_path: str) -> str:
    """A path for `cgl run NAME|FILE`: an existing file, or a packaged ruleset's name."""
    if _exists(name_or_path):
        return name_or_path
    shipped = packaged_rulesets()
    stem = os.path.basename(name_or_path)
    if stem.endswith(".cgl"):
        stem = stem[:-4]
    if stem in shipped:
        return shipped[stem]
    if os.path.isdir(name_or_path):
        raise error("E002", f"`{name_or_path}` is a folder, not a ruleset file")
    if os.path.lexists(name_or_path):   # a FIFO, a device, a broken symlink: say which
        check_file(name_or_path, "ruleset")
    hint = did_you_mean(stem, shipped) or ("shipped rulesets: " + ", ".join(sorted(shipped)) if shipped else None)
    raise error("E002", f"no ruleset file or shipped ruleset named `{name_or_path}`", hint=hint)


# Texts read instead of the files on disk (an editor's unsaved buffers, for `cgl lsp`):
# normalised absolute path -> text. Empty outside `unsaved_texts`.
_UNSAVED: contextvars.ContextVar = contextvars.ContextVar("cgl_unsaved_texts", default={})


def _key(path: str) -> str:
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


@contextlib.contextmanager
def unsaved_texts(texts: dict):
    """Within this block, reading any of these files (path -> text) gives the text instead of
    what the disk holds: the ruleset, a file it extends, its card data, a scenario file.
    `with unsaved_texts({path: buffer}): load(path)` checks what an editor shows."""
    token = _UNSAVED.set({_key(p): t for p, t in texts.items()})
    try:
        yield
    finally:
        _UNSAVED.reset(token)


def unsaved_text(path: str) -> Optional[str]:
    """The text standing in for `path` (see `unsaved_texts`), or None: read the disk."""
    texts = _UNSAVED.get()
    return texts.get(_key(path)) if texts else None


def _exists(path: str) -> bool:
    return os.path.isfile(path) or unsaved_text(path) is not None


def _read(path: str, span: Optional[A.Span] = None) -> str:
    text = unsaved_text(path)
    if text is not None:
        text = one_newline(text)
        remember_source(path, text)
        return text
    return read_text(path, "ruleset", span, limit=MAX_SOURCE_BYTES)


def ruleset_files(rs: "Ruleset") -> list[str]:
    """Every file a ruleset is made of: its .cgl file, the files it extends, its card data."""
    files = list(rs.sources)
    if rs.cards_decl is not None:
        files.append(os.path.join(os.path.dirname(rs.cards_decl.span.path), rs.cards_decl.path))
    return files


def content_hash(paths) -> str:
    """sha256 over the text of the files, in order (each one's length first, so that text moved
    from one file to the next changes it too). A file that cannot be read is an E002."""
    h = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise error("E002", f"cannot read `{path}`: {e.strerror or e.__class__.__name__}") from None
        h.update(b"%d\n" % len(data))
        h.update(data)
    return h.hexdigest()


def ruleset_hash(rs: "Ruleset") -> str:
    """The content hash of a ruleset: equal hashes, the same rules and cards."""
    return content_hash(ruleset_files(rs))


# ---------------------------------------------------------------- merging

def _merge(path: str, seen: tuple = (), roots: tuple = ()) -> tuple[list, list]:
    """The declarations of `path` with those of the files it extends, overrides applied.
    `roots`: the project's folders, which the files it extends must lie in."""
    roots = roots or project_roots(path)
    if os.path.abspath(path) in seen:
        raise error("E006", f"`{path}` extends itself through a cycle: " + " -> ".join(seen + (path,)))
    module = parse(_read(path), path)
    extends = [i for i in module.items if isinstance(i, A.Extends)]
    items: list = []
    sources: list = []
    if len(extends) > 1:
        raise error("E006", "a ruleset can extend only one other file", extends[1].span)
    if extends:
        base_path = resolve_ref(extends[0].path, path, roots, "extended file", extends[0].span)
        items, sources = _merge(base_path, seen + (os.path.abspath(path),), roots)
    sources = sources + [path]
    index = {i.key: n for n, i in enumerate(items) if i is not None and i.key}
    own: dict[str, A.Decl] = {}
    for item in module.items:
        if isinstance(item, A.Extends):
            continue
        if isinstance(item, A.Override):
            key = item.key
            if key not in index:
                raise CglError(Diagnostic("E006", f"`override` of `{key}`, which the extended file does not define",
                                          item.span, hint=did_you_mean(key, index) if extends else
                                          "`override` needs `extends \"base.cgl\"` at the top"))
            items[index[key]] = item.item
            continue
        if isinstance(item, A.Remove):
            if item.name not in index:
                raise CglError(Diagnostic("E006", f"`remove {item.name}`: the extended file does not define it",
                                          item.span, hint=did_you_mean(item.name, index)))
            items[index.pop(item.name)] = None
            continue
        key = item.key
        if key is not None:
            if key in own:
                raise CglError(Diagnostic("E005", f"`{key}` is defined twice", item.span,
                                          related=(f"first defined at {own[key].span}",)))
            if key in index:
                raise CglError(Diagnostic("E005", f"`{key}` is already defined by the extended file",
                                          item.span, hint="write `override` before it to replace it"))
            own[key] = item
            index[key] = len(items)
        items.append(item)
    return items, sources


# ---------------------------------------------------------------- card data

def _type_ok(value, t: A.TypeRef, enums: dict) -> bool:
    if t.is_list:
        return isinstance(value, list) and all(_type_ok(v, A.TypeRef(t.name), enums) for v in value)
    if t.name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t.name == "bool":
        return isinstance(value, bool)
    if t.name == "text":
        return isinstance(value, str)
    if t.name in enums:
        return isinstance(value, str) and value in enums[t.name]
    return False


def read_yaml(path: str, code: str, what: str, span: Optional[A.Span] = None):
    """A YAML file whose mappings remember their positions (MarkedDict), or a diagnostic
    (see :func:`files.load_yaml`); an editor's unsaved text of the file, if any, stands in
    for the disk's (see `unsaved_texts`)."""
    return load_yaml(path, code, what, span, text=unsaved_text(path))


#: The pictures a card data may name (`image:`, `images:`), by suffix, with their media types.
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".svg": "image/svg+xml"}
MAX_IMAGE_BYTES = 4 * 1024 * 1024    # one card's picture


def _image(ref, path: str, roots: tuple, span) -> str:
    """The real path of the picture a card data names (`image: FILE`, relative to the card
    data's folder), checked like every file a ruleset names (inside the project, not
    absolute, a regular file), and a picture by its suffix; an E003/E002 at `span` otherwise."""
    if not isinstance(ref, str) or not ref.lower().endswith(tuple(IMAGE_TYPES)):
        raise CglError(Diagnostic("E003", f"`image: {ref}` is not a picture file", span,
                                  hint="name a file relative to the card data's folder, ending in "
                                       + ", ".join(IMAGE_TYPES)))
    if os.path.isabs(ref):
        raise CglError(Diagnostic("E002", f"the image `{ref}` is an absolute path: name it relative to "
                                  f"`{os.path.dirname(path) or '.'}`", span))
    full = os.path.join(os.path.dirname(path), ref)
    if not inside(full, roots):
        raise CglError(Diagnostic("E002", f"the image `{ref}` lies outside the project", span,
                                  hint="a ruleset reads only files in its own folder and below; a symlink that "
                                       "leads out counts as outside (README, \"Security and limits\")"))
    check_file(full, "image", span, MAX_IMAGE_BYTES)
    return os.path.realpath(full)


def _folder_images(folder, path: str, roots: tuple, names: list, span) -> dict:
    """{card name: picture} found in the card data's `images: FOLDER` (relative to the card
    data's folder): the file named after the card, with a picture's suffix."""
    if not isinstance(folder, str) or os.path.isabs(folder):
        raise CglError(Diagnostic("E003", f"`images: {folder}` must name a folder relative to the card data's folder",
                                  span, hint="images: art/   (then art/NAME.png is the picture of the card NAME)"))
    where = os.path.join(os.path.dirname(path), folder)
    if not inside(where, roots) or not os.path.isdir(where):
        raise CglError(Diagnostic("E002", f"the image folder `{folder}` is not a folder of the project", span))
    try:
        files = {f.lower(): f for f in os.listdir(where)}
    except OSError as e:
        raise CglError(Diagnostic("E002", f"cannot read the image folder `{folder}`: {e.strerror}", span)) from None
    out = {}
    for name in names:
        for suffix in IMAGE_TYPES:
            f = files.get(name.lower() + suffix)
            if f is not None and os.sep not in name and not name.startswith("."):
                out[name] = _image(os.path.join(folder, f), path, roots, span)
                break
    return out


def _load_cards(decl: A.Cards, enums: dict, roots: tuple = ()) -> tuple[list, dict, dict]:
    path = resolve_ref(decl.path, decl.span.path, roots or project_roots(decl.span.path), "card data", decl.span)
    data = read_yaml(path, "E003", "the card data", decl.span)
    if not isinstance(data, MarkedDict) or not isinstance(data.get("cards"), list):
        raise CglError(Diagnostic("E003", "the card data needs a list under `cards:`",
                                  data.span(path, "cards") if isinstance(data, MarkedDict) else A.Span(path, 1, 1, 1, 2),
                                  hint="cards:\n    - {name: Some Card}"))
    props = {p.name: p for p in decl.props}
    for p in decl.props:
        if not p.type.is_list and p.type.name not in BASE_TYPES | set(enums):
            raise CglError(Diagnostic("E008", f"unknown type `{p.type.name}` for property `{p.name}`", p.type.span,
                                      hint=did_you_mean(p.type.name, BASE_TYPES | set(enums))))
    defaults = {}
    for p in decl.props:
        if p.default is not None:
            defaults[p.name] = _const_value(p.default, enums)
            if not _type_ok(defaults[p.name], p.type, enums):
                raise CglError(Diagnostic("E008", f"the default of `{p.name}` is not a {p.type}", p.default.span,
                                          hint=f"`{p.type.name}` is one of: " + ", ".join(enums[p.type.name])
                                          if p.type.name in enums else None))
    cards: list[Card] = []
    roots = roots or project_roots(decl.span.path)
    images: dict = {}
    for n, entry in enumerate(data["cards"]):
        if not isinstance(entry, MarkedDict):
            raise CglError(Diagnostic("E003", "each card must be a mapping like `{name: …, type: …}`",
                                      data["cards"].span(path, n)))
        values = dict(defaults)
        count, image = 1, None
        for k, v in entry.items():
            if k == "count":
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    raise CglError(Diagnostic("E003", f"`count` must be a whole number of copies, not `{v}`",
                                              entry.span(path, k, value=True)))
                if v > MAX_COPIES:
                    raise CglError(Diagnostic("E003", f"`count: {v}` is more than the limit of {MAX_COPIES:,} "
                                              "copies of a card", entry.span(path, k, value=True)))
                count = v
                continue
            if k == "image" and k not in props:   # (a picture for the table: not a property the rules read)
                image = _image(v, path, roots, entry.span(path, k, value=True))
                continue
            if k not in props:
                raise CglError(Diagnostic("E003", f"card property `{k}` is not declared in the ruleset's `cards` block",
                                          entry.span(path, k), hint=did_you_mean(str(k), props)
                                          or f"declare it: `{k}: text` inside `cards from \"{decl.path}\"`"))
            if not _type_ok(v, props[k].type, enums):
                hint = None
                if props[k].type.name in enums:
                    hint = did_you_mean(str(v), enums[props[k].type.name]) or \
                        f"`{props[k].type.name}` is one of: " + ", ".join(enums[props[k].type.name])
                raise CglError(Diagnostic("E003", f"`{k}: {v}` is not a {props[k].type}", entry.span(path, k, value=True),
                                          hint=hint))
            values[k] = v
        missing = [p for p in props if p not in values]
        if missing:
            raise CglError(Diagnostic("E003", f"card `{entry.get('name', '?')}` has no `{missing[0]}`", entry.span(path)))
        if len(cards) + count > MAX_CARDS:
            raise CglError(Diagnostic("E003", f"the card data holds more than the limit of {MAX_CARDS:,} cards",
                                      entry.span(path, "count" if "count" in entry else None)))
        for _ in range(count):
            cards.append(Card(len(cards), str(values.get("name", f"card {len(cards) + 1}")), values))
        if image is not None:
            images.setdefault(str(values.get("name", f"card {len(cards)}")), image)
    tables = _tables(data, path)
    for k in data:
        if k not in ("cards", "tables", "images"):
            raise CglError(Diagnostic("E003", f"unknown key `{k}` in the card data (it has `cards:`, `tables:` and "
                                      "`images:`)", data.span(path, k),
                                      hint=did_you_mean(str(k), ["cards", "tables", "images"])))
    if "images" in data:
        found = _folder_images(data["images"], path, roots, list(dict.fromkeys(c.name for c in cards)),
                               data.span(path, "images", value=True))
        images = {**found, **images}     # (a card's own `image:` comes first)
    return cards, tables, images


def _tables(data, path: str) -> dict:
    """The card data's `tables:` ({name: {key: value}}), each checked to be a mapping."""
    tables = data.get("tables") or {}
    if not isinstance(tables, dict):
        raise CglError(Diagnostic("E003", "`tables:` must map table names to tables", data.span(path, "tables")))
    for k, v in tables.items():   # (`lookup(TABLE, key)` reads a mapping: anything else fails only in play)
        if not isinstance(v, dict):
            shape = "a list" if isinstance(v, list) else "empty" if v is None else f"the value `{v}`"
            raise CglError(Diagnostic("E003", f"table `{k}` must map keys to values (`key: value` lines), and it is "
                                      f"{shape}",
                                      tables.span(path, k) if hasattr(tables, "span") else data.span(path, "tables"),
                                      hint=f"one `key: value` line for each entry under `{k}:`, or "
                                           f"`{k}: {{a_key: a value, another: another value}}`"))
    return {str(k): dict(v) for k, v in tables.items()}


def _const_value(expr: A.Expr, enums_or_members) -> Any:
    if isinstance(expr, A.Int):
        return expr.value
    if isinstance(expr, A.Const):
        return expr.value
    if isinstance(expr, A.Text) and expr.constant is not None:
        return expr.constant
    if isinstance(expr, A.Neg) and isinstance(expr.operand, A.Int):
        return -expr.operand.value
    if isinstance(expr, A.Name):
        members = enums_or_members
        if isinstance(members, dict):
            for ms in members.values():
                if expr.id in ms:
                    return expr.id
    if isinstance(expr, A.ListLit):
        return [_const_value(i, enums_or_members) for i in expr.items]
    raise CglError(Diagnostic("E008", "this must be a plain value (a number, text, true/false, none or a list)",
                              expr.span))


# ---------------------------------------------------------------- options

def parse_option_value(opt: A.Option, raw: str, enums: dict, span: Optional[A.Span] = None):
    """Turn `--option name=raw` into a value of the option's type, or explain why not."""
    t = opt.type
    text = raw.strip()
    if t.name == "int" and not t.is_list:
        try:
            v = int(text)
        except ValueError:
            raise error("E007", f"option `{opt.name}` takes a whole number, not `{raw}`", span) from None
        if opt.lo is not None and not (opt.lo <= v <= opt.hi):
            allowed = f"can only be {opt.lo}" if opt.lo == opt.hi else f"must be between {opt.lo} and {opt.hi}"
            raise error("E007", f"option `{opt.name}` {allowed}, not {v}", span,
                        hint="the declaration above sets the range; a comment beside it may say why")
        return v
    if t.name == "bool":
        low = text.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise error("E007", f"option `{opt.name}` is on or off (true/false), not `{raw}`", span)
    if t.name in enums:
        if text not in enums[t.name]:
            raise error("E007", f"option `{opt.name}` is one of {', '.join(enums[t.name])}, not `{raw}`", span,
                        hint=did_you_mean(text, enums[t.name]))
        return text
    return text


def option_text(value) -> str:
    """An option's value as `--option name=TEXT` writes it (`true`, `3`, `pozorki`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_bounds(rs: "Ruleset", name: str) -> Optional[tuple]:
    """An option's least and greatest values: an int range's ends, false and true, an
    enum's first and last members; None for an int with no range or a text."""
    opt = rs.options[name]
    t = opt.type
    if t.is_list:
        return None
    if t.name == "int" and opt.lo is not None:
        return opt.lo, opt.hi
    if t.name == "bool":
        return False, True
    if t.name in rs.enums:
        return rs.enums[t.name][0], rs.enums[t.name][-1]
    return None


def option_samples(rs: "Ruleset", name: str) -> list:
    """The values of one option worth playing: its default (its value in `rs`) first, then
    its least and greatest values and, for an int range, the middle one (rounded down); an
    enum's every member. An int with no range or a text: the default only."""
    opt = rs.options[name]
    b = option_bounds(rs, name)
    more = [] if b is None else [b[0], b[1]]
    if b is not None and opt.type.name == "int":
        more.append((b[0] + b[1]) // 2)
    elif opt.type.name in rs.enums and not opt.type.is_list:
        more += list(rs.enums[opt.type.name])
    return list(dict.fromkeys([rs.option_values[name]] + more))


def option_sets(rs: "Ruleset") -> list:
    """A deterministic cycle of option sets for soak runs and tests: the defaults (`{}`),
    every option at its least value at once, every one at its greatest at once, then each
    option alone at each of its other samples (`option_samples`). A set maps only the
    options it changes from `rs`'s values; no set repeats."""
    names = sorted(rs.options)
    ends = {n: b for n in names if (b := option_bounds(rs, n)) is not None}
    sets = [{}, {n: b[0] for n, b in ends.items()}, {n: b[1] for n, b in ends.items()}]
    sets += [{n: v} for n in names for v in option_samples(rs, n)[1:]]
    out, seen = [], set()
    for s in sets:
        s = {k: v for k, v in s.items() if v != rs.option_values[k]}
        key = tuple(sorted((k, option_text(v)) for k, v in s.items()))
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def load(path_or_name: str, options: Optional[dict] = None) -> Ruleset:
    """Load and check a ruleset. `options` maps option names to strings (from the CLI) or values."""
    path = resolve(path_or_name)
    items, sources = _merge(path, (), project_roots(path))
    items = [i for i in items if i is not None]
    by_kind: dict[type, list] = {}
    for it in items:
        by_kind.setdefault(type(it), []).append(it)

    def one(cls):
        found = by_kind.get(cls, [])
        return found[-1] if found else None

    game = one(A.Game)
    if game is None:
        raise error("E004", "the ruleset has no `game \"Name\" { … }` header", A.Span(path, 1, 1, 1, 2),
                    hint='start the file with: game "My game" { players 2..4 }')
    enums = {e.name: e.members for e in by_kind.get(A.Enum, [])}
    enum_members = {}
    for en, ms in enums.items():
        for m in ms:
            enum_members.setdefault(m, en)
    cards_decl = one(A.Cards)
    roots = project_roots(path)
    cards, tables, images = _load_cards(cards_decl, enums, roots) if cards_decl else ([], {}, {})

    opts = {o.name: o for o in by_kind.get(A.Option, [])}
    values = {}
    for o in opts.values():
        values[o.name] = _const_value(o.default, enums)
    for k, raw in (options or {}).items():
        if k not in opts:
            raise error("E007", f"this ruleset has no option `{k}`",
                        hint=did_you_mean(k, opts) or ("its options: " + ", ".join(opts) if opts else "it has no options"))
        # a value from the Python API (an int, a bool) is checked as its text would be
        values[k] = (parse_option_value(opts[k], option_text(raw), enums, opts[k].span)
                     if isinstance(raw, (str, int)) else raw)

    def named(cls):
        return {i.name: i for i in by_kind.get(cls, [])}

    rs = Ruleset(
        path=path, game=game, options=opts, option_values=values, enums=enums, enum_members=enum_members,
        cards_decl=cards_decl, cards=cards, tables=tables, derives=named(A.Derive), zones=named(A.Zone),
        vars=named(A.Var), defs=named(A.Def), procedures=named(A.Procedure), table_decls=named(A.Table),
        patterns=named(A.Pattern), setup=one(A.Setup), match=one(A.MatchDecl), round=one(A.RoundDecl),
        turn=one(A.TurnDecl), triggers=by_kind.get(A.Trigger, []), reactions=by_kind.get(A.Reaction, []),
        actions=by_kind.get(A.Action, []), rules=by_kind.get(A.Rule, []),
        invariants=by_kind.get(A.Invariant, []), deck=one(A.DeckDecl), items=items, sources=sources,
        checks=by_kind.get(A.Check, []), estimate=one(A.Estimate), roots=roots, emits=_emits(items),
        shows=by_kind.get(A.Show, []), images=images, targets=by_kind.get(A.TargetDecl, []),
    )
    _check_roles(rs)
    from .names import check_names
    found = check_names(rs)
    if found:
        raise CglError(found)
    return rs
