"""Recorded agent traces (OpenTelemetry GenAI spans, OpenInference) as test cases, and
verdicts written back as spans.

    cases = list(evalmark.traces.read("traces.jsonl", match="session.id"))
    report = Scorer().evaluate_test_cases(cases, TrajectoryMatch(), samples=expected)

``read`` streams an OTLP JSON or protobuf file; ``check`` lists the traces that cannot be
evaluated (``TraceProblem``); ``annotate`` writes a report's verdicts as OTLP JSON spans
(``gen_ai.evaluation.result``) linked to the evaluated spans, with their provenance.
"""

from evalmark.traces._problem import TraceProblem
from evalmark.traces._read import check, read

__all__ = ["TraceProblem", "check", "read"]
