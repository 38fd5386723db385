"""Conversations under pytest: a test simulates, scores and registers the report; the session
summary and the suite report name the failing conversation, the turn and the check."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

# In-process pytester sessions drop the modules first imported inside them (see
# tests/pytest_plugin); importing these here keeps one copy of each.
import evalmark.conversation
import evalmark.samples._samples  # noqa: F401

pytest_plugins = ["pytester"]

_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

TEST = """
from evalmark import SimulatedUser, score_conversations, simulate
from evalmark.conversation import ConversationCase
from evalmark.models import RuleJudge
from evalmark.pytest import register
from evalmark.strategies._llm_judge import LLMJudge


def assistant(message, thread_id):
    if message == "And the refund?":
        return "Could you remind me which plan you are on?"
    return "Noted, you are on the Team plan."


def test_support_chat():
    user = SimulatedUser.scripted(["We are on the Team plan.", "And the refund?"])
    case = ConversationCase(simulate(assistant, user, name="refund-chat"))
    report = register(
        score_conversations(
            [case], conversation_strategies=[LLMJudge("knowledge-retention", RuleJudge())]
        )
    )
    assert report.row(0).results["knowledge-retention"].metadata["turn"] == 2
"""


def test_a_registered_conversation_report_joins_the_session_report(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_chat=TEST)
    result = pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", "--evalmark-report", "out")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_chat.py::test_support_chat*1*0*1*0*0.0%*no gate*"])
    suite_md = (pytester.path / "out" / "evaluation-suite-report.md").read_text(encoding="utf-8")
    assert "refund-chat" in suite_md and "fails from turn 2" in suite_md
    document = json.loads(
        (pytester.path / "out" / "evaluation-suite-report.json").read_text("utf-8")
    )
    (report,) = document["reports"]
    assert report["metadata"]["conversations"][0]["checks"]["knowledge-retention"]["turn"] == 2
