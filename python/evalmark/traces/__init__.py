"""Recorded agent traces (OpenTelemetry GenAI spans, OpenInference) as test cases, and
verdicts written back as spans.

    problems = []
    cases = list(evalmark.traces.read("traces.jsonl", match="session.id", problems=problems))
    report = Scorer().evaluate_test_cases(cases, TrajectoryMatch(), samples=expected)
    evalmark.traces.annotate(report, cases, "verdicts.jsonl")

``read`` streams an OTLP JSON or protobuf file into ``TestCase`` values; ``check`` lists the
traces that cannot be evaluated (``TraceProblem``: no GenAI span, a broken parent chain, a
tool call without a result, no content); ``annotate`` writes a report's verdicts as OTLP JSON
spans (``gen_ai.evaluation.result``) linked to the evaluated spans, with their
``Provenance``. ``docs/traces.md`` walks through it.
"""

from evalmark.traces._annotate import Provenance, annotate
from evalmark.traces._problem import TraceProblem
from evalmark.traces._read import check, read

__all__ = ["Provenance", "TraceProblem", "annotate", "check", "read"]
