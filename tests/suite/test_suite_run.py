"""Running suites: every check kind builds an engine strategy, the judges (rule, noisy,
recorded), per-tag gates, the rows handed to ``evalmark tune``, and ``tune --from-cassette``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import StrategyError, SuiteError
from evalmark.models import RuleJudge, ScriptedChat, call_context, record_replay
from evalmark.models._prompts import PROMPTS
from evalmark.report import render_report, report_document
from evalmark.suite._loader import load_suite
from evalmark.suite._model import STRATEGY_KINDS, StrategySpec
from evalmark.suite._runner import build_strategy, check_gate, run_suite, verdict_rows

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


# the options a kind cannot do without
REQUIRED: dict[str, dict[str, object]] = {"code-checker": {"command": "ruff check {file}"}}


@pytest.mark.parametrize("kind", sorted(STRATEGY_KINDS))
def test_every_check_kind_builds_an_engine_strategy(kind: str) -> None:
    options = {"name": f"my-{kind}", **REQUIRED.get(kind, {})}
    strategy = build_strategy(StrategySpec(kind, options, "here"), RuleJudge())
    assert strategy.name == f"my-{kind}"
    assert callable(strategy.evaluate)


def test_a_missing_required_option_is_named() -> None:
    with pytest.raises(StrategyError, match="code-checker needs a 'command'"):
        build_strategy(StrategySpec("code-checker", {"name": "lint"}, "here"), RuleJudge())


def test_check_options_reach_the_strategy() -> None:
    strategy = build_strategy(StrategySpec("token-f1", {"threshold": 0.42}, "here"), None)
    assert strategy.threshold == 0.42
    similarity = build_strategy(
        StrategySpec("semantic-similarity", {"dim": 64, "threshold": 0.3}, "here"), None
    )
    assert similarity.model.dim == 64 and similarity.threshold == 0.3


@pytest.fixture
def support_copy(tmp_path: Path) -> Path:
    target = tmp_path / "support"
    shutil.copytree(SUPPORT, target, ignore=shutil.ignore_patterns("make_builds.py"))
    return target


def _edit(suite_dir: Path, old: str, new: str) -> None:
    path = suite_dir / "suite.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_noisy_judge_that_always_flips_fails_every_judged_check(support_copy: Path) -> None:
    _edit(support_copy, "  kind: rule ", "  kind: noisy\n  flip-rate: 1.0\n  seed: 7 ")
    run = run_suite(load_suite(support_copy), build="healthy")
    rows = verdict_rows(run)
    judged = [passed for _, check, passed, is_judged in rows if is_judged]
    plain = [passed for _, check, passed, is_judged in rows if not is_judged]
    assert len(judged) == 24 and not any(judged)
    assert len(plain) == 12 and all(plain)
    assert not run.passed


def test_a_noisy_judge_is_seeded(support_copy: Path) -> None:
    _edit(support_copy, "  kind: rule ", "  kind: noisy\n  flip-rate: 0.3\n  seed: 3 ")
    suite = load_suite(support_copy)
    first = verdict_rows(run_suite(suite, build="healthy", concurrency=1))
    again = verdict_rows(run_suite(suite, build="healthy", concurrency=8))
    other_run = verdict_rows(run_suite(suite, build="healthy", run_index=1))
    assert first == again
    assert first != other_run


JUDGE_FACTORY = """
from evalmark.models import RuleJudge

def make():
    return RuleJudge(min_overlap=0.6)
"""


def test_a_recorded_judge_records_then_replays(support_copy: Path) -> None:
    (support_copy / "judge_factory.py").write_text(JUDGE_FACTORY, encoding="utf-8")
    _edit(
        support_copy,
        "  kind: rule ",
        "  kind: recorded\n  cassette: judge.jsonl\n  model: judge_factory.py:make ",
    )
    suite = load_suite(support_copy)
    # nothing recorded yet: replaying is an input error before the run, not 24 errored checks
    with pytest.raises(SuiteError, match=r"suite\.yaml:\d+: the judge's cassette does not exist"):
        run_suite(suite, build="regressed", mode="replay")
    assert not (support_copy / "judge.jsonl").exists()
    recorded = run_suite(suite, build="regressed", mode="record-missing")
    cassette = support_copy / "judge.jsonl"
    assert len(cassette.read_text().splitlines()) == 1 + 24
    replayed = run_suite(suite, build="regressed", mode="replay")
    assert verdict_rows(replayed) == verdict_rows(recorded)
    assert replayed.passed_cases == 9


def test_a_recorded_judge_needs_its_model(support_copy: Path) -> None:
    _edit(support_copy, "  kind: rule ", "  kind: recorded\n  cassette: judge.jsonl ")
    needs_model = r"a recorded judge needs 'model: package\.module:factory'"
    with pytest.raises(ValueError, match=needs_model):
        load_suite(support_copy)


def test_per_tag_gates(support_copy: Path) -> None:
    suite = load_suite(support_copy)
    run = run_suite(suite, build="regressed")
    spec = type(suite.gate)(pass_rate=None, tags={"pricing": 1.0, "api": 1.0, "nosuch": 0.5})
    gates = {g.label: g for g in check_gate(spec, run.reports)}
    assert not gates["tag pricing (cases)"].passed
    assert gates["tag pricing (cases)"].detail == "1 of 3 cases tagged pricing pass every check"
    assert gates["tag api (cases)"].passed
    assert (
        not gates["tag nosuch (cases)"].passed
        and gates["tag nosuch (cases)"].detail == "no case has this tag"
    )


def test_a_gate_at_exactly_the_threshold_passes(support_copy: Path) -> None:
    _edit(support_copy, "pass-rate: 0.9", "pass-rate: 0.75")
    run = run_suite(load_suite(support_copy), build="regressed")
    assert run.passed_cases == 9 and run.cases == 12
    assert run.passed


def test_verdict_rows_name_case_check_verdict_and_judged() -> None:
    run = run_suite(load_suite(SUPPORT), build="regressed")
    rows = verdict_rows(run)
    assert rows[:3] == [
        ("refund-annual-team", "contains-facts", True, False),
        ("refund-annual-team", "relevancy", True, True),
        ("refund-annual-team", "groundedness", True, True),
    ]
    failing = sorted({case for case, _, passed, _ in rows if not passed})
    assert failing == ["live-chat-hours", "sso-on-team-plan", "team-price-eight-users-annual"]


def _judge_cassette(path: Path, verdicts: list[list[str]]) -> None:
    replies = [f"VERDICT: {v}" for group in verdicts for v in group]
    judge = record_replay(ScriptedChat(replies), path, "rewrite", model_id="judge")
    for number, group in enumerate(verdicts):
        messages = PROMPTS["relevancy"].render(question=f"question {number}?", response="answer")
        for repeat in range(len(group)):
            with call_context(sample=f"s{number}", check="relevancy", repeat=repeat):
                judge.chat(messages)


def test_tune_from_a_cassette_of_repeated_verdicts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cassette = tmp_path / "judge.jsonl"
    # 20 prompts judged 3 times; two split 2-1: 4 of 60 pairs disagree, D = 1/15, and
    # ε = (1 - √(1 - 2D)) / 2 = 0.0345.
    verdicts = [["yes", "yes", "yes"] for _ in range(18)] + [["yes", "no", "yes"]] * 2
    _judge_cassette(cassette, verdicts)
    code = main(["tune", str(SUPPORT), "--from-cassette", str(cassette), "--runs", "0"])
    captured = capsys.readouterr()
    assert code == 0
    assert f"judge flip rate from {cassette}: 0.035 (95% interval " in captured.out
    assert "20 prompts, 60 pairs" in captured.out
    assert "judge flip rate 0.0345" in captured.out


def test_tune_input_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tune", str(SUPPORT), "--cases", "12", "--flip", "0.1"]) == 2
    assert "give either a SUITE file or --cases, not both" in capsys.readouterr().err
    assert main(["tune", str(SUPPORT), "--flip", "0.1", "--healthy", "nightly"]) == 2
    assert "no build named 'nightly'; the suite records: healthy, regressed" in (
        capsys.readouterr().err
    )
    empty = tmp_path / "empty.jsonl"
    _judge_cassette(empty, [["yes"]])
    assert main(["tune", str(SUPPORT), "--from-cassette", str(empty)]) == 2
    assert "holds no prompt judged twice or more" in capsys.readouterr().err
    car_rental = ROOT / "golden" / "car-rental"
    assert main(["tune", str(car_rental), "--flip", "0.1"]) == 2
    assert "the suite needs two recorded builds" in capsys.readouterr().err


def test_load_application_gives_a_callable_application() -> None:
    from evalmark.suite._application import load_application

    regressed = load_application(SUPPORT, "regressed")
    answer = regressed("Does the Team plan include SAML single sign-on?")
    assert answer.startswith("Tallybird invoices can be customised")
    default = load_application(SUPPORT)
    assert "Enterprise plan only" in default("Does the Team plan include SAML single sign-on?")
    car_rental = ROOT / "golden" / "car-rental"
    retrieve = load_application(car_rental, evaluation="retriever")
    passages = retrieve("Which law applies if I have a dispute with Roadlark?")
    assert len(passages) == 3 and any("State of Oregon" in p for p in passages)
    with pytest.raises(ValueError, match="no evaluation named 'nope'"):
        load_application(car_rental, evaluation="nope")
    with pytest.raises(ValueError, match=r"records no builds; it calls retriever\.py:retrieve"):
        load_application(car_rental, "current", evaluation="retriever")


def test_tags_select_across_evaluations_and_skip_empty_ones() -> None:
    suite = load_suite(ROOT / "golden" / "car-rental")
    run = run_suite(suite, tags=["retrieval"])
    assert [e.name for e in run.evaluations] == ["retriever"]
    assert run.cases == 5 and run.build is None
    both = run_suite(suite, tags=["smoke", "terms"])
    assert [e.name for e in both.evaluations] == ["chatbot", "retriever"]
    assert [len(r) for r in both.reports] == [5, 3]


def test_evaluation_tags_and_run_tags_both_apply(support_copy: Path) -> None:
    _edit(support_copy, "samples: samples.yaml", "samples: samples.yaml\ntags: [billing]")
    suite = load_suite(support_copy)
    assert len(run_suite(suite).reports[0]) == 5
    narrowed = run_suite(suite, tags=["smoke"]).reports[0]
    assert narrowed.sample_names == (
        "refund-annual-team",
        "team-price-eight-users-annual",
        "free-trial-terms",
    )


def test_tune_takes_the_truth_without_the_suites_judge_noise(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    _edit(support_copy, "  kind: rule ", "  kind: noisy\n  flip-rate: 1.0\n  seed: 7 ")
    assert main(["tune", str(support_copy), "--flip", "0.03", "--runs", "0"]) == 0
    out = capsys.readouterr().out
    assert "(0 of 12 cases truly failing)" in out and "(3 truly failing)" in out


def test_progress_counts_every_answered_sample_of_the_run() -> None:
    calls: list[tuple[int, int]] = []
    run_suite(
        load_suite(ROOT / "golden" / "car-rental"), progress=lambda n, t: calls.append((n, t))
    )
    assert calls == [(1, 15)] * 15


def test_the_run_gate_is_attached_to_every_report_and_its_json(support_copy: Path) -> None:
    from evalmark.report import Report

    run = run_suite(load_suite(support_copy), build="regressed")
    assert run.gates and not run.passed
    for report in run.reports:
        assert report.gates == run.gates
        assert Report.from_json(render_report(report, "json")).gates == run.gates


def test_the_written_reports_of_a_failed_run_show_its_gate(
    support_copy: Path, tmp_path: Path
) -> None:
    import json

    from evalmark.suite._output import write_reports

    run = run_suite(load_suite(support_copy), build="regressed")
    written = write_reports(run, tmp_path, ["md", "json"])
    markdown = next(p for p in written if p.suffix == ".md").read_text("utf-8")
    assert "**Pass rate (cases): 75.0%** — 9 of 12 cases passed every check" in markdown
    assert "## Gate\n\n**Gate FAILED**" in markdown
    assert "| pass rate (cases) | 75.0% | >= 90% | FAILED | 9 of 12 cases pass every check |" in (
        markdown
    )
    document = json.loads(next(p for p in written if p.suffix == ".json").read_text("utf-8"))
    assert document["gate"][0]["label"] == "pass rate (cases)"
    assert document["summary"]["cases"]["pass_rate"] == 0.75


def test_a_suite_evaluation_is_the_engines_run_of_its_samples() -> None:
    from evalmark.engine._pipeline import run_samples
    from evalmark.engine._run import run_sync
    from evalmark.engine._settings import RunSettings
    from evalmark.samples._samples import load_samples
    from evalmark.suite._application import recorded_application_usage
    from evalmark.suite._runner import build_judge

    suite = load_suite(SUPPORT)
    (evaluation,) = suite.evaluations
    checks = [build_strategy(s, build_judge(suite.judge, "replay")) for s in evaluation.strategies]
    application = recorded_application_usage(evaluation.application, "regressed", "replay")
    direct = run_sync(
        run_samples(
            load_samples(*evaluation.samples),
            checks,
            application=application,
            settings=RunSettings(3),
            name=evaluation.name,
            metadata={"suite": suite.name, "build": "regressed"},
        )
    )
    ran = run_suite(suite, build="regressed", mode="replay", concurrency=3).reports[0]
    assert ran.gates and not direct.gates  # the suite's gate is the only difference
    assert {**report_document(ran), "gate": []} == report_document(direct)
