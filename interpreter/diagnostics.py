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

#: Every code a diagnostic may carry, with its title. `docs/lint.md` documents each.
CODES = {
    "E001": "syntax error",
    "E002": "cannot read file",
    "E003": "bad card data",
    "E004": "unknown name",
    "E005": "duplicate definition",
    "E006": "bad override",
    "E007": "bad option",
    "E008": "wrong type",
    "E009": "wrong arguments",
    "E010": "runtime error",
    "E011": "runaway rules",
    "E012": "invariant broken",
    "E013": "bad scenario",
    "E014": "bad player count",
}


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    span: Optional[Span] = None
    severity: str = "error"
    hint: Optional[str] = None
    related: tuple = ()

    @property
    def title(self) -> str:
        return CODES.get(self.code, "")


class CglError(Exception):
    """An error a person caused: it carries diagnostics, never needs a traceback."""

    def __init__(self, diagnostics: Iterable[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def error(code: str, message: str, span: Optional[Span] = None, hint: Optional[str] = None) -> CglError:
    return CglError(Diagnostic(code, message, span, "error", hint))


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    """`help:` text naming the closest candidate, if one is close enough."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


# Source text of files we have read, so a diagnostic can show its line.
_SOURCES: dict[str, str] = {}


def remember_source(path: str, text: str) -> None:
    _SOURCES[path] = text


def _source_line(path: str, line: int) -> Optional[str]:
    text = _SOURCES.get(path)
    if text is None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            return None
        _SOURCES[path] = text
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


def use_colour(stream=None) -> bool:
    stream = stream or sys.stderr
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def render(diag: Diagnostic, colour: bool = False) -> str:
    """Text form of a diagnostic, with the source line and a caret when it has a span."""
    red, bold, blue, reset = ("\x1b[31m", "\x1b[1m", "\x1b[34m", "\x1b[0m") if colour else ("",) * 4
    where = f"{diag.span}: " if diag.span and diag.span.line else (f"{diag.span.path}: " if diag.span else "")
    out = [f"{bold}{where}{red}{diag.code}{reset}{bold} {diag.message}{reset}"]
    if diag.span and diag.span.line:
        src = _source_line(diag.span.path, diag.span.line)
        if src is not None:
            gutter = f"{diag.span.line:>4} | "
            out.append(f"{blue}{gutter}{reset}{src}")
            start = max(diag.span.column - 1, 0)
            if diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
                width = diag.span.end_column - diag.span.column
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
