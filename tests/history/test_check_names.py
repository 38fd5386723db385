"""One name per check in the history: a pytest session and a suite run of the same checks
record the same check names, so their histories line up."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.history import open_history
from evalmark.history._naming import check_name
from evalmark.history._queries import list_runs

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


@pytest.mark.parametrize(
    ("reported", "recorded"),
    [
        ("ContainsFacts", "contains-facts"),
        ("TokenF1", "token-f1"),
        ("RougeLsum", "rouge-lsum"),
        ("Judge(relevancy)", "relevancy"),
        ("Judge(groundedness)", "groundedness"),
        ("TrajectoryMatch(strict)", "trajectory-match"),
        ("JsonKeysMatch", "json-keys"),
        ("contains-facts", "contains-facts"),  # a suite's name stays
        ("facts", "facts"),  # a name given by hand stays
        ("MyOwnCheck", "MyOwnCheck"),  # no kind of that name
        ("Judge(my-prompt)", "Judge(my-prompt)"),
        ("Composite(a, b)", "Composite(a, b)"),
    ],
)
def test_the_rule(reported: str, recorded: str) -> None:
    assert check_name(reported) == recorded


def test_a_pytest_session_and_a_suite_run_name_the_same_checks_alike(
    pytester: pytest.Pytester,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "h.sqlite"
    pytester.makepyfile(
        f"""
        from evalmark.models import RuleJudge
        from evalmark.models._prompts import PROMPTS
        from evalmark.pytest import evaluation_test
        from evalmark.strategies import ContainsFacts, LLMJudge
        from evalmark.suite import load_application

        answer = load_application({str(SUPPORT)!r}, "healthy")
        judge = RuleJudge(min_overlap=0.6)

        @evaluation_test(
            samples={str(SUPPORT / "samples.yaml")!r},
            function=answer,
            strategy=[
                ContainsFacts(),
                LLMJudge(PROMPTS["relevancy"], judge),
                LLMJudge(PROMPTS["groundedness"], judge),
            ],
        )
        def test_support():
            pass
        """
    )
    monkeypatch.setenv("EVALMARK_HISTORY", str(db))
    session = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
    session.assert_outcomes(passed=1)
    code = main(
        ["run", str(SUPPORT), "--build", "healthy", "-q", "--no-report", "--history", str(db)]
    )
    assert code == 0
    capsys.readouterr()
    with open_history(db) as store:
        suite_run, pytest_run = list_runs(store)
        assert (pytest_run.source, suite_run.source) == ("pytest", "run")
        from_pytest = [(r.case, r.strategy) for r in store.results_of(pytest_run.id)]
        from_suite = [(r.case, r.strategy) for r in store.results_of(suite_run.id)]
    assert {check for _, check in from_suite} == {"contains-facts", "relevancy", "groundedness"}
    assert sorted(from_pytest) == sorted(from_suite)
