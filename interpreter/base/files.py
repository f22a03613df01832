"""The one loading layer for every file cgl reads: rulesets, card data, scenarios, deck
lists, saves (and replay logs).

Every file goes through :func:`read_text` (and YAML through :func:`load_yaml`), which
give a located diagnostic for each bad input instead of a traceback, a hang or a
memory blow-up:

- special files (folders, FIFOs, devices, sockets) are refused at once, from `os.stat`,
  before anything is opened (a FIFO is never waited on);
- a file bigger than :data:`MAX_SOURCE_BYTES` (CGL, YAML) or :data:`MAX_FILE_BYTES`
  (JSON) is refused before it is read;
- text that is not UTF-8 (or holds a NUL byte) is an error at the line and column of the
  first bad byte;
- YAML is read by a safe loader (no Python tags) that refuses, at their line and column:
  nesting deeper than :data:`MAX_YAML_DEPTH`, more than :data:`MAX_YAML_ALIASES` aliases
  or a document that aliases expand beyond :data:`MAX_YAML_NODES` nodes (the "billion
  laughs"), an alias of a collection inside itself, a key given twice, and a whole
  number of more than :data:`MAX_INT_DIGITS` digits; its syntax errors say in words
  what is likely wrong.

Files named inside other files go through :func:`resolve_ref`, the path sandbox: what
`extends`, `cards from`, a deck's `default` or a scenario's `ruleset:` names must lie
inside the project's folder tree (README, "Security and limits"), never through a
symlink that leads out, never as an absolute path or a `..` out of the tree; the error
never quotes the file named. Diagnostics quote source lines only from texts this layer
(or the parser) remembered, never from a file opened for the purpose.

For other modules (the replay log reader among them):

    read_text(path, kind, span=None, remember=True, limit=MAX_FILE_BYTES)
                                              -> str   (E002 when it cannot be read; a log:
                                                        remember=False until it is known to be one)
    load_yaml(path, code, what, span=None)    -> MarkedDict / MarkedList / scalar
    check_file(path, kind, span=None)         -> None  (the os.stat checks alone)
    indirect_ruleset(path, kind, span=None)   -> str   (a ruleset named inside a save or a log
                                                        header: call it before loading that ruleset)
"""
from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import tempfile
import threading
from typing import Optional

import yaml
from yaml.events import AliasEvent

from .ast import Span
from .diagnostics import CglError, Diagnostic, did_you_mean, remember_source

# ---------------------------------------------------------------- limits (README, "Security and limits")

MAX_FILE_BYTES = 8 * 1024 * 1024     # a save or a log (JSON)
MAX_SOURCE_BYTES = 1024 * 1024       # a ruleset, card data, a scenario, a deck list (CGL or YAML)
MAX_YAML_DEPTH = 64                  # nested lists and mappings in a YAML file
MAX_YAML_ALIASES = 10_000            # uses of `*alias` in one YAML file
MAX_YAML_NODES = 1_000_000           # values in a YAML file once its aliases are expanded
MAX_INT_DIGITS = 18                  # digits of a whole number in YAML
MAX_COPIES = 10_000                  # a card's `count`, a deck entry's `copies`
MAX_CARDS = 100_000                  # cards in a card file, or in a deck list

YAML_SUFFIXES = (".yaml", ".yml")


def _err(code: str, message: str, span: Optional[Span], hint: Optional[str] = None) -> CglError:
    return CglError(Diagnostic(code, message, span, hint=hint))


# ---------------------------------------------------------------- reading a file

def _near(path: str) -> Optional[str]:
    """`did you mean` among the files of the folder `path` would be in."""
    folder = os.path.dirname(path) or "."
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    return did_you_mean(os.path.basename(path), names)


def check_file(path: str, kind: str, span: Optional[Span] = None, limit: int = MAX_FILE_BYTES) -> None:
    """The checks made before a file is opened (from `os.stat`, which never blocks): it
    exists, it is a regular file (not a folder, FIFO, device or socket) and it is not
    bigger than `limit`. An E002 at `span` otherwise (without one, at the file itself)."""
    span = span or Span(path, 0, 0, 0, 0)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _err("E002", f"cannot find the {kind} `{path}`", span, _near(path)) from None
    except OSError as e:
        raise _err("E002", f"cannot read the {kind} `{path}`: {e.strerror or e.__class__.__name__}", span) from None
    if stat.S_ISDIR(st.st_mode):
        raise _err("E002", f"the {kind} `{path}` is a folder, not a file", span)
    if not stat.S_ISREG(st.st_mode):
        raise _err("E002", f"the {kind} `{path}` is not a regular file (a FIFO, device or socket): cgl reads "
                   "only plain files", span)
    if st.st_size > limit:
        raise _err("E002", f"the {kind} `{path}` has {st.st_size:,} bytes: more than the limit of {limit:,}",
                   span, "README, \"Security and limits\", lists the limits")


def read_text(path: str, kind: str, span: Optional[Span] = None, remember: bool = True,
              limit: int = MAX_FILE_BYTES) -> str:
    """The text of a file, or an E002 at `span` (where the file is named) that says why not:
    missing (with the nearest name in its folder), a folder or special file, too big, or
    not UTF-8 text (then at the line and column of the first bad byte, without quoting
    the file). `remember`: keep the text so that diagnostics can show its lines (for a
    file of the project read as CGL or YAML)."""
    check_file(path, kind, span, limit)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise _err("E002", f"cannot read the {kind} `{path}`: {e.strerror or e.__class__.__name__}", span) from None
    if len(data) > limit:   # a file that grows (or lies about its size, as /proc files do)
        raise _err("E002", f"the {kind} `{path}` has more than {limit:,} bytes: more than the limit", span,
                   "README, \"Security and limits\", lists the limits")
    bad = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = e.start if bad < 0 else min(bad, e.start)
    if bad >= 0:   # (its place counted as the text is read: CR, CRLF and LF end a line alike)
        before = one_newline(data[:bad].decode("utf-8", errors="replace"))
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        what = "a NUL byte" if data[bad] == 0 else f"the byte 0x{data[bad]:02x} (not UTF-8)"
        raise CglError(Diagnostic("E002", f"the {kind} is not text: {what} at line {line}, column {col}",
                                  Span(path, line, col, line, col + 1),
                                  hint="cgl reads UTF-8 text files; is this a binary file, or saved in "
                                       "another encoding?"))
    text = one_newline(text)
    if remember:
        remember_source(path, text)
    return text


def one_newline(text: str) -> str:
    """Line endings read alike: CRLF and a lone CR are line breaks, as LF is (a file saved
    with CR alone was read as one line, its first comment swallowing the rest)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# ---------------------------------------------------------------- writing

def check_target(path: str, kind: str, inputs=()) -> None:
    """Before cgl writes `path`: it is not a folder or a special file (a FIFO, device or
    socket: writing one would block, or replace it with a plain file), not read-only, and not
    one of this run's `inputs` (the ruleset a `--save` would overwrite). An E002 otherwise."""
    span = Span(path, 0, 0, 0, 0)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _err("E002", f"cannot write the {kind} `{path}`: {e.strerror or e.__class__.__name__}", span) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _err("E002", f"cannot write the {kind} `{path}`: it is a folder", span)
        if not stat.S_ISREG(st.st_mode):
            raise _err("E002", f"cannot write the {kind} `{path}`: it is not a regular file (a FIFO, device or "
                       "socket), which cgl never replaces", span, "name a plain file")
        # (the write is a rename, which a file's own mode does not stop: the mode is asked here;
        # a file no one may write is read-only for root too)
        if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
            raise _err("E002", f"cannot write the {kind} `{path}`: it is read-only, and cgl leaves it as it is",
                       span, f"make it writable first (chmod u+w {path}) to let cgl replace it")
        for other in inputs:
            try:
                if other and os.path.samefile(path, other):
                    raise _err("E002", f"cannot write the {kind} `{path}`: it is `{other}`, which this command "
                               "reads", span, "name another file: it would be overwritten")
            except OSError:
                continue


def write_text(path: str, text: str, kind: str, inputs=(), newline: Optional[str] = None) -> None:
    """Write a whole file at once, or leave it as it was: the text goes to a temporary file
    in the same folder, which then replaces `path` (an interrupted or failed write — a full
    disk, a file-size limit — leaves the old file whole and no temporary behind). The
    target is checked first (`check_target`). An E002 that says why on failure."""
    check_target(path, kind, inputs)
    folder = os.path.dirname(os.path.abspath(path))
    with _signals_held():
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
                f.write(text)
            try:
                mode = stat.S_IMODE(os.stat(path).st_mode)
            except OSError:
                mode = 0o666 & ~_umask()
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException as e:   # (whatever stops it, the temporary goes)
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if not isinstance(e, OSError):
                raise
            raise _err("E002", f"cannot write the {kind} `{path}`: {e.strerror or e.__class__.__name__}; "
                       "the file is as it was", Span(path, 0, 0, 0, 0)) from None


@contextlib.contextmanager
def _signals_held():
    """SIGTERM and SIGINT wait while a file is written (in the main thread, where Python
    handles them): one that comes then takes effect once the file is in place, so it never
    leaves a temporary behind (SIGTERM's default action ends the process at once)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


# ---------------------------------------------------------------- the path sandbox

def packaged_root() -> Optional[str]:
    """The folder of the shipped rulesets (`cgl/rulesets`): every ruleset may read it."""
    try:
        from importlib import resources
        return os.path.realpath(str(resources.files("cgl.rulesets")))
    except (ModuleNotFoundError, FileNotFoundError, TypeError):
        return None


def project_roots(named_file: str) -> tuple:
    """The project of a file the user named: its folder and everything below, and the
    shipped rulesets' folder (real paths, symlinks resolved)."""
    roots = [os.path.realpath(os.path.dirname(os.path.abspath(named_file)))]
    shipped = packaged_root()
    if shipped and shipped not in roots:
        roots.append(shipped)
    return tuple(roots)


def inside(path: str, roots) -> bool:
    """Whether the real path of `path` (symlinks followed) lies under one of `roots`."""
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def found_in(folder: str, path: str) -> str:
    """`path`, found by walking the folder the user named, checked to lie inside it (a
    symlink leading out of it is an E002 that does not read the file it leads to)."""
    if not inside(path, (os.path.realpath(folder),)):
        raise _err("E002", f"`{path}` is a symlink that leads outside `{folder}`: not read", Span(path, 0, 0, 0, 0),
                   "name the file itself on the command line to read it")
    return path


def resolve_ref(ref: str, from_file: str, roots, kind: str, span: Optional[Span] = None) -> str:
    """The path of a file named in `from_file` (by `extends`, `cards from`, a deck's
    `default`, a scenario's `ruleset:`), relative to its folder, checked against the
    project: inside `roots` (symlinks followed), not absolute, a regular file that exists. An E002 at `span` otherwise, which never quotes the file."""
    where = "the project" if len(roots) < 2 else "the project (" + ", ".join(roots[:-1]) + ") or the shipped rulesets"
    if os.path.isabs(ref):
        raise _err("E002", f"the {kind} `{ref}` is an absolute path: name it relative to "
                   f"`{os.path.dirname(from_file) or '.'}`", span,
                   "a ruleset reads only files in its own folder and below (README, \"Security and limits\")")
    path = os.path.join(os.path.dirname(from_file), ref)
    if not inside(path, roots):
        raise _err("E002", f"the {kind} `{ref}` lies outside {where}", span,
                   "a ruleset reads only files in its own folder and below, and the shipped rulesets; "
                   "a symlink that leads out counts as outside (README, \"Security and limits\")")
    check_file(path, kind, span, MAX_SOURCE_BYTES)
    return path


def indirect_ruleset(path: str, kind: str, span: Optional[Span] = None) -> str:
    """A ruleset named inside a file the user did not write for this run (a save, a log
    header): it must be a regular `.cgl` file, its real path too (so that no such file
    can make cgl parse, and quote, a file that is not a ruleset)."""
    if not os.path.realpath(path).endswith(".cgl") or not path.endswith(".cgl"):
        raise _err("E002", f"the {kind} `{path}` is not a `.cgl` file", span,
                   "a save or a log names its ruleset's .cgl file")
    check_file(path, kind, span, MAX_SOURCE_BYTES)
    return path


# ---------------------------------------------------------------- YAML

class MarkedDict(dict):
    """A YAML mapping that remembers where it and each of its keys and values start."""

    line = 0
    column = 0
    key_marks: dict = {}

    def span(self, path, key=None, value=False):
        if key is not None and key in self.key_marks:
            kl, kc, vl, vc = self.key_marks[key]
            if value:
                v = self.get(key)
                width = len(str(v)) if isinstance(v, (str, int, float, bool)) or v is None else 1
                return Span(path, vl, vc, vl, vc + min(width, 80))
            return Span(path, kl, kc, kl, kc + len(str(key)))
        return Span(path, self.line, self.column, self.line, self.column + 1)


class MarkedList(list):
    """A YAML sequence that remembers where each of its items starts (`marks[i]`)."""

    marks: list = []

    def span(self, path, index):
        if 0 <= index < len(self.marks):
            line, col = self.marks[index]
            return Span(path, line, col, line, col + 1)
        return Span(path, 1, 1, 1, 2)


def span_of(path: str, node_or_mark) -> Span:
    mark = getattr(node_or_mark, "start_mark", node_or_mark)
    return Span(path, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2)


class _Loader(yaml.SafeLoader):
    """The safe loader, counting nesting, aliases and expanded size while it composes."""

    def __init__(self, stream, path: str, code: str, what: str):
        super().__init__(stream)
        self.cgl_path, self.cgl_code, self.cgl_what = path, code, what
        self.cgl_depth = 0
        self.cgl_aliases = 0
        self.cgl_nodes = 0
        self.cgl_weight: dict = {}     # node -> values it stands for once expanded

    def _refuse(self, mark, message, hint=None):
        raise CglError(Diagnostic(self.cgl_code, f"{self.cgl_what}: {message}", span_of(self.cgl_path, mark),
                                  hint=hint))

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            event = self.peek_event()
            node = self.anchors.get(event.anchor)
            if node is not None:
                if node not in self.cgl_weight:
                    self._refuse(event.start_mark, f"the alias `*{event.anchor}` is used inside the value it "
                                 "names (a value that contains itself)")
                self.cgl_aliases += 1
                self.cgl_nodes += self.cgl_weight[node]
                if self.cgl_aliases > MAX_YAML_ALIASES:
                    self._refuse(event.start_mark, f"more than {MAX_YAML_ALIASES:,} aliases (`*name`)",
                                 "README, \"Security and limits\", lists the limits")
                if self.cgl_nodes > MAX_YAML_NODES:
                    self._refuse(event.start_mark, f"its aliases expand to more than {MAX_YAML_NODES:,} values "
                                 "(aliases of aliases multiply)", "write the values out, or use fewer aliases")
            return super().compose_node(parent, index)
        self.cgl_depth += 1
        if self.cgl_depth > MAX_YAML_DEPTH:
            self._refuse(self.peek_event().start_mark, f"lists and mappings nested more than {MAX_YAML_DEPTH} deep")
        before = self.cgl_nodes
        self.cgl_nodes += 1
        node = super().compose_node(parent, index)
        self.cgl_depth -= 1
        self.cgl_weight[node] = self.cgl_nodes - before
        if self.cgl_nodes > MAX_YAML_NODES:
            self._refuse(node.start_mark, f"more than {MAX_YAML_NODES:,} values")
        return node


def _construct_mapping(loader, node):
    seen: dict = {}
    for k, _ in node.value:
        if k.tag == "tag:yaml.org,2002:merge":
            continue
        try:
            key = loader.construct_object(k)
            hash(key)
        except TypeError:
            continue
        if key in seen:
            loader._refuse(k.start_mark, f"the key `{key}` is given twice in this mapping (first at line "
                           f"{seen[key].line + 1})", "remove one of them: YAML would silently keep the last")
        seen[key] = k.start_mark
    mapping = MarkedDict(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    mapping.column = node.start_mark.column + 1
    mapping.key_marks = {}
    for k, v in node.value:
        try:
            mapping.key_marks[loader.construct_object(k)] = (k.start_mark.line + 1, k.start_mark.column + 1,
                                                            v.start_mark.line + 1, v.start_mark.column + 1)
        except TypeError:
            pass
    return mapping


def _construct_sequence(loader, node):
    out = MarkedList(loader.construct_sequence(node, deep=True))
    out.marks = [(n.start_mark.line + 1, n.start_mark.column + 1) for n in node.value]
    return out


def _construct_int(loader, node):
    text = str(node.value).lstrip("+-").replace("_", "")
    digits = sum(ch.isalnum() for ch in text) - (2 if text[:2].lower() in ("0x", "0o", "0b") else 0)
    if digits > MAX_INT_DIGITS:
        loader._refuse(node.start_mark, f"a whole number of {digits:,} digits (at most {MAX_INT_DIGITS})",
                       "no count, score or value of a card game needs a number this big")
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)

# PyYAML's problems, said in words (the first that matches the problem text)
_YAML_HINTS = (
    ("cannot start any token", "a tab or a character such as `@` or a backquote cannot start a value: YAML indents "
     "with spaces, and a text starting with such a character needs quotes"),
    ("mapping values are not allowed", "a `:` followed by a space inside a value: put the value in quotes, or "
     "check that this line is indented like the keys around it"),
    ("could not find expected ':'", "a line that is neither `key: value` nor `- item`: a missing `:`, or a "
     "quote or bracket left open on the line above"),
    ("did not find expected key", "this line is not indented like the keys of its mapping, or a `- ` item "
     "lies among `key: value` lines"),
    ("did not find expected '-' indicator", "this line is not indented like the `- ` items of its list"),
    ("expected ',' or ']'", "a list in `[…]` is not closed, or two items lack a `,` between them"),
    ("expected ',' or '}'", "a mapping in `{…}` is not closed, or two entries lack a `,` "
     "between them"),
    ("found unexpected end of stream", "the file ends inside a quoted text: a quote is not closed"),
    ("found undefined alias", "an alias `*name` needs an anchor `&name` earlier in the file"),
    ("expected <block end>", "this line is indented less or more than the lines of its block"),
    ("found unhashable key", "a key must be a plain value (a text or a number), not a list or a mapping"),
    ("could not determine a constructor", "cgl reads plain YAML: tags such as `!!python/…` are refused"),
    ("found character", "this character cannot appear here; quote the value"),
)


def _yaml_hint(problem: str) -> str:
    for needle, hint in _YAML_HINTS:
        if needle in problem:
            return hint
    return "check the indentation, the quotes and the brackets on this line and the line above"


_FLOW = re.compile(r"""[\[\]{}]|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|(?:^|(?<=\s))#[^\n]*""", re.M)


def _flow_depth(text: str, path: str, code: str, what: str) -> None:
    """Refuse `[[[[…` nested deeper than MAX_YAML_DEPTH before PyYAML sees it: its scanner
    looks ahead up to 1,024 characters of such a run for a key, which is slow."""
    depth = 0
    for m in _FLOW.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_YAML_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                raise CglError(Diagnostic(code, f"{what}: lists and mappings nested more than {MAX_YAML_DEPTH} deep",
                                          Span(path, line, col, line, col + 1)))
        elif ch in "]}":
            depth = max(depth - 1, 0)


def load_yaml(path: str, code: str, what: str, span: Optional[Span] = None, text: Optional[str] = None):
    """A YAML file read through :func:`read_text`, its mappings MarkedDict and its lists
    MarkedList, or a diagnostic: E002 when it cannot be read, `code` at the line and column
    of the problem when it is not YAML or breaks a limit. `what` names it in messages
    ("the card data")."""
    if text is None:
        text = read_text(path, what.removeprefix("the "), span, limit=MAX_SOURCE_BYTES)
    _flow_depth(text, path, code, what)
    loader = None
    try:
        loader = _Loader(text, path, code, what)   # its reader checks the characters already
        return loader.get_single_data()
    except yaml.reader.ReaderError as e:   # a character YAML does not allow, at its place
        ch = ord(e.character) if isinstance(e.character, str) else e.character
        line = text.count("\n", 0, e.position) + 1
        col = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        raise CglError(Diagnostic(code, f"{what} is not valid YAML: the character U+{ch:04X} is not "
                                        "allowed in YAML", Span(path, line, col, line, col + 1),
                                  hint="a control character: is this a text file? delete it, or write it as "
                                       "an escape inside double quotes (\"\\x1f\")")) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        sp = span_of(path, mark) if mark else Span(path, 1, 1, 1, 2)
        lines = text.splitlines() or [""]
        if sp.line > len(lines):   # at the end of the file: after its last character
            sp = Span(path, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
        problem = str(e.problem or e.context or "")
        raise CglError(Diagnostic(code, f"{what} is not valid YAML: {problem}", sp, hint=_yaml_hint(problem))) \
            from None
    except yaml.YAMLError as e:
        raise CglError(Diagnostic(code, f"{what} is not valid YAML: {e.__class__.__name__}", Span(path, 1, 1, 1, 2),
                                  hint=_yaml_hint(str(e)))) from None
    except RecursionError:   # not reachable with MAX_YAML_DEPTH, kept as a last guard
        raise CglError(Diagnostic(code, f"{what} nests too deeply", Span(path, 1, 1, 1, 2))) from None
    finally:
        if loader is not None:
            loader.dispose()
