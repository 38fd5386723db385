"""The conversation sections of the Markdown and HTML reports."""

from __future__ import annotations

from evalmark.conversation import ConversationCase, ScriptedTurn
from evalmark.conversation._report import score_conversations
from evalmark.conversation._simulate import simulate
from evalmark.conversation._users import SimulatedUser
from evalmark.models import RuleJudge
from evalmark.report import Report, render_report
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.strategies._llm_judge import LLMJudge


def app(message: str, thread_id: str) -> str:
    if message == "again?":
        return "<script>alert(1)</script> Could you remind me of your order number?"
    return "Sure | noted"


def report() -> Report:
    script = (ScriptedTurn("order 42 please"), ScriptedTurn("again?"))
    cases = [
        ConversationCase(simulate(app, SimulatedUser.scripted(script), name=name), script)
        for name in ("forgot", "fine")
    ]
    # "fine" stops before the forgetful turn
    cases[1] = ConversationCase(
        simulate(app, SimulatedUser.scripted(script[:1]), name="fine"), script[:1]
    )
    return score_conversations(
        cases, conversation_strategies=[LLMJudge("knowledge-retention", RuleJudge())]
    )


def test_markdown_lists_the_conversations_and_the_transcript_of_the_failing_one() -> None:
    text = render_report(report(), "markdown")
    assert "## Conversations" in text
    assert (
        "| forgot | fail | 2 | the user ended it after 2 turns | knowledge-retention (turn 2) |"
        in text
    )
    assert "| fine | pass | 1 |" in text
    transcripts = text.split("## Transcripts of failing conversations: 1", 1)[1]
    assert "### forgot" in transcripts and "### fine" not in transcripts
    assert "**Turn 1, user:** order 42 please" in transcripts
    assert "Sure \\| noted" in transcripts  # a pipe cannot break the page
    assert "&lt;script&gt;" in transcripts and "<script>" not in text
    flag = transcripts.index("> ❌ **knowledge-retention**: fails from turn 2")
    assert flag > transcripts.index("**Turn 2, user:**")


def test_html_escapes_the_transcript() -> None:
    page = render_report(report(), "html")
    assert "<h2>Conversations</h2>" in page and "<h3>forgot</h3>" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    assert page.count("<script>") == 1  # the page's own filter script only
    assert page.rindex("fails from turn 2") > page.index("Turn 2, user:")


def test_reports_without_conversations_get_no_section() -> None:
    plain = Report(
        name="plain",
        sample_names=["a"],
        sample_tags=[()],
        columns={"check": ResultColumn.from_results([EvaluationResult.from_bool(True)])},
    )
    assert "Conversation" not in render_report(plain, "markdown")
    assert "Conversation" not in render_report(plain, "html")


def test_a_report_read_back_from_json_renders_the_same_transcripts() -> None:
    original = report()
    again = Report.from_json(render_report(original, "json"))
    assert render_report(again, "markdown") == render_report(original, "markdown")
    assert render_report(again, "html") == render_report(original, "html")
