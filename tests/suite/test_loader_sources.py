"""A sample source a registered loader claims (``mem://golden``) works in a suite file's
``samples:`` as it does in ``load_samples``: one resolution rule, a loader URI when a loader
claims it, else a path (issue 29, item 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalmark import Sample, Samples, register_sample_loader, unregister_sample_loader
from evalmark.errors import SuiteError
from evalmark.samples import _plugins as plugins_module
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

SUITE = "samples: {source}\napplication: {{function: app.py:answer}}\nstrategies: [exact-match]\n"
APP = "def answer(question):\n    return {'What is 2 + 2?': '4'}.get(question, '?')\n"


class MemoryLoader:
    """The seed's example: samples held in memory, named by a ``mem://`` URI."""

    def supports(self, source: object) -> bool:
        return isinstance(source, str | os.PathLike) and os.fspath(source).startswith("mem://")

    def load(self, source: object) -> Samples:
        return Samples(
            [
                Sample(name="sum", parameters=("What is 2 + 2?",), expected_output="4"),
                Sample(name="other", parameters=("Capital?",), expected_output="Paris"),
            ]
        )


@pytest.fixture
def mem_loader(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(plugins_module, "_from_entry_points", [])
    loader = register_sample_loader(MemoryLoader())
    yield loader
    unregister_sample_loader(loader)


def _suite(tmp_path: Path, source: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE.format(source=source), encoding="utf-8")
    return tmp_path


@pytest.mark.usefixtures("mem_loader")
def test_a_suite_names_a_loader_source_and_runs_it(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, "mem://golden"))
    (evaluation,) = suite.evaluations
    assert evaluation.samples == ("mem://golden",)
    run = run_suite(suite)
    (report,) = run.reports
    assert [(row.name, row.verdict) for row in report.rows()] == [
        ("sum", "pass"),
        ("other", "fail"),
    ]


def test_without_a_loader_the_source_is_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugins_module, "_from_entry_points", [])
    with pytest.raises(SuiteError, match="no such file 'mem://golden'"):
        load_suite(_suite(tmp_path, "mem://golden"))


@pytest.mark.usefixtures("mem_loader")
def test_the_run_history_fingerprints_files_only(tmp_path: Path) -> None:
    from evalmark.history._append import suite_inputs

    suite = load_suite(_suite(tmp_path, "mem://golden"))
    assert [kind for kind, _ in suite_inputs(suite, None)] == []
