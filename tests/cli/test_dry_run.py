"""``evalmark run --dry-run``: calls, tokens and cost before a run, from the samples, the
judge prompts and the token counts recorded in cassettes; no model call, exit 0."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.models import record_replay
from evalmark.models._fakes import ScriptedChat
from evalmark.models._values import ChatReply, Usage
from evalmark.suite._estimate import JUDGE_REPLY_TOKENS, estimate_run, estimate_tokens
from evalmark.suite._loader import load_suite

QUESTIONS = {"refund": "How long do refunds take?", "sso": "Is SSO on the Team plan?"}


def write_suite(tmp_path: Path, judge: str = "{kind: rule}") -> Path:
    samples = "".join(
        f"- {{name: {name}, parameters: ['{q}'], expected-output: 'Thirty days.', "
        f"context: ['Refunds take thirty days.']}}\n"
        for name, q in QUESTIONS.items()
    )
    (tmp_path / "samples.yaml").write_text(samples, encoding="utf-8")
    # Only the refund answer recorded its token counts.
    replies = [
        ChatReply(text="Thirty days.", usage=Usage(40, 5, 45)),
        ChatReply(text="No, SSO is on the Enterprise plan only."),
    ]
    app = record_replay(
        ScriptedChat(replies), tmp_path / "app.jsonl", "record-missing", model_id="app"
    )
    for question in QUESTIONS.values():
        app.chat([{"role": "user", "content": question}])
    suite = f"""\
        name: priced
        samples: samples.yaml
        repeats: 2
        application: {{model-id: app, builds: {{current: app.jsonl}}}}
        strategies:
          - contains-facts
          - relevancy: {{repeats: 3}}
        judge: {judge}
        """
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(suite), encoding="utf-8")
    return path


def test_the_estimate_uses_recorded_counts_and_renders_the_judge_prompts(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path))
    application, judge = estimate_run(suite).rows
    # 2 samples x 2 repeats; refund recorded 40 in / 5 out, sso estimated from its text.
    sso_in = estimate_tokens(QUESTIONS["sso"])
    sso_out = estimate_tokens("No, SSO is on the Enterprise plan only.")
    assert (application.calls, application.source) == (4, "estimated + recorded")
    assert application.input_tokens == 2 * (40 + sso_in)
    assert application.output_tokens == 2 * (5 + sso_out)
    # The judge: 2 samples x 2 app repeats x 3 judge repeats, answered locally (rule judge).
    assert (judge.caller, judge.calls, judge.priced) == ("judge: relevancy", 12, False)
    assert judge.output_tokens == 12 * JUDGE_REPLY_TOKENS
    assert judge.input_tokens > 12 * sso_in  # the whole relevancy prompt, not just the question
    assert application.cost(Decimal(1_000_000), Decimal(0)) == application.input_tokens


def test_dry_run_prints_a_table_and_exits_0_without_calling_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A recorded judge whose factory would fail if the dry run built it.
    (tmp_path / "judge_model.py").write_text(
        "def make():\n    raise RuntimeError('the dry run built the judge')\n", encoding="utf-8"
    )
    judge = "{kind: recorded, cassette: judge.jsonl, model: judge_model.py:make}"
    path = write_suite(tmp_path, judge)
    code = main(["run", str(path), "--dry-run", "--price-input", "2", "--price-output", "10"])
    out = capsys.readouterr().out
    assert code == 0
    assert "evalmark run --dry-run: priced" in out
    assert "judge: relevancy" in out and "application (current)" in out
    assert "no model was called" in out
    assert not (tmp_path / "judge.jsonl").exists()
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert total.split()[3] == "16"  # 4 application calls + 12 judge calls


def test_a_negative_price_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(write_suite(tmp_path)), "--dry-run", "--price-input", "-1"])
    assert code == 2
    assert "--price-input must be a price >= 0" in capsys.readouterr().err


def test_a_conversation_suite_is_estimated_per_turn_and_per_conversation() -> None:
    # The bundled multi-turn demo: 3 scripted/persona conversations, 3 whole-conversation
    # judged checks; scripted turns are counted exactly, persona cases up to max-turns.
    suite = load_suite(Path(__file__).parents[2] / "golden" / "support-chat")
    estimate = estimate_run(suite)
    by_caller = {row.caller: row for row in estimate.rows}
    cases = suite.evaluations[0].conversations
    assert cases is not None
    turns = sum(len(c.turns) if c.turns is not None else c.max_turns for c in cases.cases)
    assert by_caller["application (conversation turns, at most)"].calls == turns
    judged = [row for row in estimate.rows if row.caller.startswith("judge: ")]
    assert judged and all(row.calls == len(cases.cases) for row in judged)
    assert main(["run", str(suite.path), "--dry-run"]) == 0
