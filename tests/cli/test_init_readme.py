"""The README's steps after ``make demo`` run as written: ``make demo`` leaves evalmark in
``.venv/bin`` only and installs no pytest, so the steps activate the venv and install pytest
before using them; then each ``evalmark`` and ``pytest`` command runs, under this repository's
own pytest configuration, with no pytest plugin but evalmark's and those the steps install."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Your own application in a minute"


def _steps() -> list[list[str]]:
    """The commands of the section's first bash block, comments dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None, "the section shows its steps in a bash block"
    lines = (line.split("#", 1)[0].strip() for line in block.group(1).splitlines())
    return [shlex.split(line) for line in lines if line]


def _index(steps: list[list[str]], program: str) -> int:
    return next(i for i, step in enumerate(steps) if step[0] == program)


def test_the_steps_put_evalmark_and_pytest_where_make_demo_does_not() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "VENV ?= .venv" in makefile and "$(VENV)/bin/evalmark run golden/support" in makefile
    core = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project.optional")[0]
    assert "pytest" not in core, "make demo installs the core dependencies only"
    steps = _steps()
    activate = next(i for i, s in enumerate(steps) if s[:2] in ([".", ".venv/bin/activate"],))
    assert activate < _index(steps, "evalmark"), "evalmark is only in .venv/bin"
    install = next(i for i, s in enumerate(steps) if s[:2] == ["pip", "install"])
    assert "pytest" in steps[install][2:] and install < _index(steps, "pytest")


def _blocked_plugins(installed_by_steps: set[str]) -> list[str]:
    """``-p no:NAME`` for every pytest plugin of this environment that a fresh ``.venv`` with
    evalmark and the packages the steps install would not have."""
    kept = {"evalmark", *installed_by_steps}
    names = [e.name for e in entry_points(group="pytest11") if e.dist and e.dist.name not in kept]
    return [arg for name in sorted(names) for arg in ("-p", f"no:{name}")]


def test_the_steps_run_as_written(tmp_path: Path) -> None:
    # The clone's folder as the steps see it: this repository's pytest configuration applies.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTEST_ADDOPTS", None)
    steps = _steps()
    installed = {p for s in steps if s[:2] == ["pip", "install"] for p in s[2:]}
    ran = []
    for step in steps:
        if step[0] in (".", "source", "pip"):
            continue  # the venv running these tests stands for .venv, with pytest in it
        argv = [str(bin_dir / step[0]), *step[1:]]
        if step[0] == "pytest":
            argv += ["-p", "no:cacheprovider", *_blocked_plugins(installed)]
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{shlex.join(step)}:\n{done.stdout}\n{done.stderr}"
        ran.append(step[0])
    assert ran == ["evalmark", "evalmark", "pytest"]
