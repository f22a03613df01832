"""The wheel installs one namespace, `cgl`, with the grammar and the rulesets as data."""
from __future__ import annotations

import pathlib
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_wheel_holds_only_the_cgl_namespace_with_its_data(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                          "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    wheel = next(tmp_path.glob("cgl-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("cgl-")}
    assert tops == {"cgl"}, tops  # never a top-level `cli` or `interpreter`
    for needed in ("cgl/grammar/cgl.lark", "cgl/interpreter/engine.py", "cgl/cli/main.py",
                   "cgl/rulesets/mgt.cgl", "cgl/rulesets/mgt-v0.1.cgl", "cgl/rulesets/mgt-cards.yaml"):
        assert needed in names, needed
    entry = [n for n in names if n.endswith("entry_points.txt")]
    assert entry and "cgl = cgl.cli.main:main" in zipfile.ZipFile(wheel).read(entry[0]).decode()
