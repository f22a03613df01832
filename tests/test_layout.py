"""The layout of cgl.interpreter: its sub-packages are stages, and data flows one way,
from a stage to a later one. No module imports a module of a later stage (inside a
function too; only imports under `if TYPE_CHECKING:` are exempt), except the few listed
in KNOWN_UPWARD, each with its reason; and no folder holds more than MAX_MODULES modules.
docs/architecture.md ("The stages") says what each stage holds."""
from __future__ import annotations

import pathlib

from test_structure import PACKAGES, _imports, _modules   # (one reading of cgl's modules and imports)

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The stages, lowest first: the sub-packages of cgl.interpreter.
STAGES = ["base", "parse", "runtime", "check", "walker", "codegen", "play", "tools", "analytics"]
# Where the other packages sit: the grammar with the parse stage; the command above all.
PLACE = {"cgl.grammar": "parse", "cgl.cli": None}   # None: above the last stage

MAX_MODULES = 12

# (importer, imported): why the import goes up. An entry no longer found fails
# test_the_known_upward_imports_are_still_there, so the list only shrinks.
KNOWN_UPWARD: dict = {}


def _rank(module):
    """The position of a module's stage (None: cgl.interpreter itself, which is no stage)."""
    for pkg, stage in PLACE.items():
        if module == pkg or module.startswith(pkg + "."):
            return len(STAGES) if stage is None else STAGES.index(stage)
    parts = module.split(".")
    if parts[:2] == ["cgl", "interpreter"] and len(parts) > 2:
        return STAGES.index(parts[2])
    return None


def _upward() -> set:
    mods = dict(_modules())
    found = set()
    for name, path in mods.items():
        low = _rank(name)
        for target in _imports(name, path, mods, type_checking=False):
            high = _rank(target)
            if low is not None and high is not None and high > low:
                found.add((name, target))
    return found


def test_every_module_lies_in_a_stage():
    flat = sorted(p.name for p in (ROOT / "interpreter").glob("*.py") if p.name != "__init__.py")
    assert flat == [], "put these in the sub-package of their stage"
    folders = sorted(p.name for p in (ROOT / "interpreter").iterdir() if (p / "__init__.py").exists())
    assert folders == sorted(STAGES)


def test_no_module_imports_a_later_stage():
    unexplained = sorted(_upward() - set(KNOWN_UPWARD))
    assert unexplained == [], "an import from a later stage: move the code it needs to a lower stage"


def test_the_known_upward_imports_are_still_there():
    """An entry of KNOWN_UPWARD whose import is gone is taken off the list."""
    assert sorted(set(KNOWN_UPWARD) - _upward()) == []


def test_the_upward_check_finds_an_upward_import():
    assert _rank("cgl.interpreter.base.ast") < _rank("cgl.interpreter.walker.engine") < _rank("cgl.cli.main")
    assert _rank("cgl.grammar") == _rank("cgl.interpreter.parse.build")


def test_no_folder_holds_too_many_modules():
    crowded = []
    for folder in PACKAGES:
        for d in [ROOT / folder, *[p for p in (ROOT / folder).rglob("*") if p.is_dir()]]:
            n = len([p for p in d.glob("*.py") if p.name != "__init__.py"])
            if n > MAX_MODULES:
                crowded.append(f"{d.relative_to(ROOT)}: {n} modules")
    assert crowded == [], "split the folder into sub-packages"
