"""`cgl new NAME`: a small working ruleset folder to start from (the texts are cli/templates/)."""
from __future__ import annotations

import os
import re
from importlib import resources

# (template, where it goes in the new folder); __NAME__ stands for the ruleset's name
FILES = (("ruleset.cgl.tmpl", "{name}.cgl"),
         ("cards.yaml.tmpl", "{name}-cards.yaml"),
         ("scenario.yaml.tmpl", os.path.join("scenarios", "{name}-play.yaml")))

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class NewError(Exception):
    """Why a folder cannot be made (the name, or files that are already there)."""


def plan(folder: str) -> list[tuple[str, str]]:
    """The files `cgl new folder` would write, as (path, text); refuses a bad name or existing files."""
    name = os.path.basename(os.path.normpath(folder))
    if not NAME.fullmatch(name):
        raise NewError(f"`{name}` cannot name a ruleset: use letters, digits, `-` and `_`, starting with a letter "
                       "(for example: cgl new my-game)")
    out = []
    for template, target in FILES:
        text = resources.files("cgl.cli").joinpath("templates", template).read_text(encoding="utf-8")
        out.append((os.path.join(folder, target.format(name=name)), text.replace("__NAME__", name)))
    there = [p for p, _ in out if os.path.exists(p)]
    if there:
        raise NewError(f"`{there[0]}` already exists; nothing was written (cgl new never overwrites a file)")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise NewError(f"`{folder}` exists and is not a folder; nothing was written")
    return out


def write(folder: str) -> list[str]:
    """Write the new ruleset folder; the paths written, the ruleset first."""
    files = plan(folder)
    made: list = []          # what this call created, removed again if a write fails
    try:
        for path, text in files:
            parent = os.path.dirname(path) or "."
            missing = []
            while parent and not os.path.isdir(parent):
                missing.append(parent)
                parent = os.path.dirname(parent)
            for d in reversed(missing):
                os.mkdir(d)
                made.append(d)
            with open(path, "x", encoding="utf-8") as f:
                made.append(path)
                f.write(text)
    except OSError as e:
        for p in reversed(made):   # nothing partial is left behind
            try:
                os.rmdir(p) if os.path.isdir(p) else os.unlink(p)
            except OSError:
                pass
        raise NewError(f"cannot write `{folder}`: {e.strerror or e.__class__.__name__}; nothing was left "
                       "behind") from None
    return [p for p, _ in files]
