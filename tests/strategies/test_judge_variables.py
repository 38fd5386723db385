"""Extra prompt variables per call, and the exact prompt of a failing case in the report."""

from __future__ import annotations

import json

import pytest

from evalmark import Scorer
from evalmark.models._fakes import ScriptedChat
from evalmark.report import render_report
from evalmark.samples._samples import Sample
from evalmark.strategies import LLMJudge

SAMPLE = Sample(
    name="tone", parameters=["Reset my password"], expected_output="ok", metadata={"tone": "formal"}
)


def test_a_text_template_takes_extra_variables_from_a_mapping_or_a_function() -> None:
    judge = ScriptedChat(["yes", "no"])
    fixed = LLMJudge(
        "Is {response} written for {audience}? yes/no", judge, variables={"audience": "admins"}
    )
    assert fixed.messages(fixed.values(SAMPLE, "Click reset."))[0]["content"] == (
        "Is Click reset. written for admins? yes/no"
    )
    per_call = LLMJudge(
        "Tone {tone}: {response}",
        judge,
        variables=lambda sample, output: {"tone": sample.metadata["tone"]},
    )
    assert per_call.messages(per_call.values(SAMPLE, "Hi"))[0]["content"] == "Tone formal: Hi"
    with pytest.raises(ValueError, match="unknown variable"):
        LLMJudge("Is {response} for {audience}?", judge)


def test_a_catalog_judge_fills_a_variable_from_extra_values() -> None:
    reply = json.dumps({"reasoning": "followed", "score": True})
    judge = ScriptedChat([reply])
    strategy = LLMJudge(
        "plan-adherence", judge, mode="prompted", variables={"plan": "1. look up\n2. answer"}
    )
    assert strategy.evaluate(SAMPLE, "looked up, answered").passed
    assert "2. answer" in judge.calls[0].messages[-1]["content"]


def test_the_prompt_of_a_failing_case_is_in_the_json_report() -> None:
    judge = ScriptedChat({".": "no"})
    strategy = LLMJudge("relevancy", judge, name="relevant")
    report = Scorer().evaluate([SAMPLE], lambda q: "Bananas.", strategy)
    (case,) = json.loads(render_report(report, "json"))["samples"]
    sent = case["results"]["relevant"]["metadata"]["judge_prompt"]
    assert sent == strategy.messages(strategy.values(SAMPLE, "Bananas."))
    assert "Bananas." in sent[-1]["content"]
