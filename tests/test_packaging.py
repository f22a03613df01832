"""The wheel installs one namespace, `cgl`, with the grammar and the rulesets as data."""
from __future__ import annotations

import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The project's wheel, built once for this module's tests."""
    folder = tmp_path_factory.mktemp("wheel")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "-w", str(folder), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return next(folder.glob("cgl-*.whl"))


def test_wheel_holds_only_the_cgl_namespace_with_its_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("cgl-")}
    assert tops == {"cgl"}, tops  # never a top-level `cli` or `interpreter`
    for needed in ("cgl/grammar/cgl.lark", "cgl/interpreter/walker/engine.py", "cgl/interpreter/codegen/engine.py",
                   "cgl/cli/main.py", "cgl/cli/templates/ruleset.cgl.tmpl", "cgl/cli/templates/cards.yaml.tmpl",
                   "cgl/cli/templates/scenario.yaml.tmpl",
                   "cgl/rulesets/mgt.cgl", "cgl/rulesets/mgt-v0.1.cgl", "cgl/rulesets/mgt-cards.yaml",
                   "cgl/rulesets/monkic.cgl", "cgl/rulesets/unicorns-cards.yaml",
                   "cgl/rulesets/kozyablo.cgl", "cgl/rulesets/kozyablo-decks/pozorki.yaml"):
        assert needed in names, needed
    entry = [n for n in names if n.endswith("entry_points.txt")]
    assert entry and "cgl = cgl.cli.entry:main" in zipfile.ZipFile(wheel).read(entry[0]).decode()


def test_an_installed_wheel_plays_every_shipped_ruleset(wheel, tmp_path):
    """Install the wheel into a fresh virtualenv (no source tree) and play each ruleset by name."""
    import venv
    env_dir = tmp_path / "venv"
    # isolated: the developer's editable install must not answer for the wheel; this pip
    # installs into it (`--python`), which spares the new environment a pip of its own
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr[-2000:]
    for name, players in (("mgt", 2), ("mgt-v0.1", 2), ("monkic", 2), ("unicorns", 3), ("kozyablo", 2)):
        run = subprocess.run([str(py), "-m", "cgl.cli.main", "run", name, "-p", str(players), "-s", "1", "-q"],
                             capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
        assert run.returncode == 0, (name, run.stdout[-500:], run.stderr[-1500:])
