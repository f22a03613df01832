"""One Diagnostic type for every error a person can see: parse, load, data, runtime.

Rendered like rustc/ruff: ``path:line:col: CODE message``, the source line, a caret
under the span, then ``help:`` lines.
"""
from __future__ import annotations

import difflib
import os
import sys
from typing import Iterable, Optional

import attrs

from .ast import Span

from .codes import CODES  # noqa: E402  (the registry of codes)


@attrs.frozen
class Diagnostic:
    """A finding: its code (see :mod:`cgl.interpreter.base.codes`), message, where, and help."""

    code: str
    message: str
    span: Optional[Span] = None
    severity: Optional[str] = None   # None: the code's own severity
    hint: Optional[str] = None
    related: tuple = ()
    # (Span, text): the edit the `help:` line asks for, where it is not a did-you-mean of the
    # name the message quotes (the language server offers both as quick fixes)
    fix: Optional[tuple] = None

    @property
    def level(self) -> str:
        if self.severity:
            return self.severity
        c = CODES.get(self.code)
        return c.severity if c else "error"

    @property
    def title(self) -> str:
        c = CODES.get(self.code)
        return c.title if c else ""

    def to_json(self) -> dict:
        sp = self.span
        return {"code": self.code, "severity": self.level, "title": self.title, "message": self.message,
                "path": sp.path if sp else None, "line": sp.line if sp else None,
                "column": sp.column if sp else None, "end_line": sp.end_line if sp else None,
                "end_column": sp.end_column if sp else None, "hint": self.hint, "related": list(self.related)}


class CglError(Exception):
    """An error a person caused: it carries diagnostics, never needs a traceback."""

    def __init__(self, diagnostics: Iterable[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def error(code: str, message: str, span: Optional[Span] = None, hint: Optional[str] = None) -> CglError:
    return CglError(Diagnostic(code, message, span, None, hint))


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    """`help:` text naming the closest candidate, if one is close enough."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


# Source text of files we have read as CGL or YAML of the project, so a diagnostic can show
# its line. Only these: a span never makes cgl open a file to quote it (files.py).
_SOURCES: dict[str, str] = {}


def remember_source(path: str, text: str) -> None:
    _SOURCES[path] = text


def remembered_source(path: str) -> Optional[str]:
    """The text remembered for `path`, if any (what a diagnostic may quote)."""
    return _SOURCES.get(path)


def _source_line(path: str, line: int) -> Optional[str]:
    text = _SOURCES.get(path)
    if text is None:
        return None
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


_WIDE = 120   # the longest source line shown whole


def use_colour(stream=None) -> bool:
    stream = stream or sys.stderr
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def render(diag: Diagnostic, colour: bool = False) -> str:
    """Text form of a diagnostic, with the source line and a caret when it has a span."""
    red, bold, blue, reset = ("\x1b[31m", "\x1b[1m", "\x1b[34m", "\x1b[0m") if colour else ("",) * 4
    if colour and diag.level == "warning":
        red = "\x1b[33m"
    where = f"{diag.span}: " if diag.span and diag.span.line else (f"{diag.span.path}: " if diag.span else "")
    out = [f"{bold}{where}{red}{diag.code}{reset}{bold} {diag.message}{reset}"]
    if diag.span and diag.span.line:
        src = _source_line(diag.span.path, diag.span.line)
        if src is not None:
            gutter = f"{diag.span.line:>4} | "
            start = max(diag.span.column - 1, 0)
            if len(src) > _WIDE:   # a very long line: the part around the caret
                cut = max(0, start - _WIDE // 2)
                src = ("…" if cut else "") + src[cut:cut + _WIDE] + ("…" if cut + _WIDE < len(src) else "")
                start -= cut - (1 if cut else 0)
            out.append(f"{blue}{gutter}{reset}{src}")
            if diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
                width = min(diag.span.end_column - diag.span.column, max(len(src) - start, 1))
            else:
                width = 1
            out.append(" " * len(gutter) + " " * start + f"{red}{'^' * width}{reset}")
    if diag.hint:
        out.append(f"  {blue}help:{reset} {diag.hint}")
    for rel in diag.related:
        out.append(f"  {blue}note:{reset} {rel}")
    return "\n".join(out)


def render_all(diags: Iterable[Diagnostic], colour: bool = False) -> str:
    return "\n".join(render(d, colour) for d in diags)


def render_github(diag: Diagnostic) -> str:
    """A GitHub Actions workflow command: shows the finding on the pull request's line."""
    def esc(s: str, prop: bool = False) -> str:
        s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return s.replace(":", "%3A").replace(",", "%2C") if prop else s
    kind = "warning" if diag.level == "warning" else "error"
    props = []
    if diag.span and diag.span.path:
        props.append(f"file={esc(diag.span.path, True)}")
        if diag.span.line:
            props += [f"line={diag.span.line}", f"col={diag.span.column}",
                      f"endLine={diag.span.end_line}", f"endColumn={diag.span.end_column}"]
    props.append(f"title={esc(diag.code + ' ' + diag.title, True)}")
    text = diag.message + (f"\nhelp: {diag.hint}" if diag.hint else "")
    return f"::{kind} {','.join(props)}::{esc(text)}"
