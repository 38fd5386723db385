"""The command line starts light: `evalmark --help` and a subcommand's help import only what
that command needs, never numpy, and the list of commands is the one each module registers."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from evalmark import cli

MODULE_LIMIT = 40


def loaded_by(*argv: str) -> tuple[list[str], bool]:
    """The evalmark modules and whether numpy was imported by ``evalmark ARGV`` in a fresh
    interpreter."""
    code = (
        "import json, sys\n"
        "from evalmark.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "mods = sorted(m for m in sys.modules if m.startswith('evalmark'))\n"
        "sys.stderr.write(json.dumps([mods, 'numpy' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    modules, numpy = json.loads(done.stderr.splitlines()[-1])
    return modules, numpy


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("score", "--help"),
        ("code", "--help"),
        ("history", "--help"),
        ("report", "--help"),
        ("judge", "--help"),
        ("init", "--help"),
        ("prompts", "--help"),
    ],
    ids=" ".join,
)
def test_help_loads_no_numpy_and_few_modules(argv: tuple[str, ...]) -> None:
    modules, numpy = loaded_by(*argv)
    assert not numpy
    assert len(modules) < MODULE_LIMIT, modules


def test_the_top_level_help_imports_no_command_module() -> None:
    modules, _ = loaded_by("--help")
    assert [m for m in modules if m.startswith("evalmark.cli.")] == []


def test_each_summary_is_the_one_its_module_registers() -> None:
    for name in cli._COMMANDS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(f"evalmark.cli._{name}").register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered[name] == cli._SUMMARIES[name]


def test_a_mistyped_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["scroe", "x"])
    assert exited.value.code == 2
    assert "invalid choice: 'scroe'" in capsys.readouterr().err


def test_the_command_is_found_after_top_level_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--version", "init", "--help"])
    assert "starter" in capsys.readouterr().out


def test_the_score_parser_offers_the_scoring_error_policies() -> None:
    from evalmark.cli import _score as score
    from evalmark.scoring._compute import ON_ERROR_CHOICES

    assert score.ON_ERROR_CHOICES == ON_ERROR_CHOICES
