"""Sample paths in suite files: relative to the suite file, else to the project root."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark.errors import SuiteError
from evalmark.suite._loader import load_suite, project_root

SAMPLES = "- {name: one, parameters: [q], expected-output: a}\n"
SUITE = "samples: {path}\napplication: {{function: app.py:answer}}\nstrategies: [exact-match]\n"


def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    suites = tmp_path / "suites" / "smoke"
    suites.mkdir(parents=True)
    return suites


def test_a_path_missing_beside_the_suite_is_found_from_the_project_root(tmp_path: Path) -> None:
    suites = project(tmp_path)
    (suites / "suite.yaml").write_text(SUITE.format(path="golden/samples.yaml"), encoding="utf-8")
    (evaluation,) = load_suite(suites).evaluations
    assert evaluation.samples == (tmp_path.resolve() / "golden" / "samples.yaml",)
    assert project_root(suites) == tmp_path.resolve()


def test_the_suite_folder_wins_over_the_project_root(tmp_path: Path) -> None:
    suites = project(tmp_path)
    (suites / "golden").mkdir()
    (suites / "golden" / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    (suites / "suite.yaml").write_text(SUITE.format(path="golden/samples.yaml"), encoding="utf-8")
    (evaluation,) = load_suite(suites).evaluations
    assert evaluation.samples == (suites / "golden" / "samples.yaml",)


def test_a_path_found_nowhere_names_both_places(tmp_path: Path) -> None:
    suites = project(tmp_path)
    (suites / "suite.yaml").write_text(SUITE.format(path="golden/missing.yaml"), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(suites)
    message = str(info.value)
    assert f"resolved to {suites / 'golden' / 'missing.yaml'} from the suite file" in message
    assert f"and to {tmp_path.resolve() / 'golden' / 'missing.yaml'} from the project root" in (
        message
    )
