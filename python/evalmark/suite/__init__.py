"""Suite files: one YAML file that says what to evaluate, how, and when the run fails.

A suite names its samples, the application under test (recorded builds replayed from cassettes,
or a live ``module:function``), the strategies (checks), the judge behind the judged checks, the
gate, and where the reports go. ``evalmark run SUITE`` and the pytest plugin read suites with
:func:`load_suite`; every problem is reported as a ``SuiteError`` naming the file, the line, the
key and what to write instead. Input paths in a suite (samples, cassettes, baseline) are
relative to the suite file; the report folder is relative to where evalmark runs.

A minimal suite::

    name: support
    samples: samples.yaml
    application:
      model-id: support-assistant
      builds:
        healthy: builds/healthy.jsonl
        regressed: builds/regressed.jsonl
    strategies: [contains-facts, relevancy, groundedness]
    judge: {kind: rule}
    gate: {pass-rate: 0.9}
    report: {dir: reports, formats: [md, json]}

A suite with several parts (different samples, application or checks) lists them under
``evaluations:``, each with its own ``name``, ``samples``, ``application`` and ``strategies``;
the judge, gate and report stay shared.

Modules: :mod:`~evalmark.suite._model` (what a suite holds), :mod:`~evalmark.suite._loader`
(reading and checking the file), :mod:`~evalmark.suite._application` (the application under
test as a callable), :mod:`~evalmark.suite._runner` (running a suite and its gate) and
:mod:`~evalmark.suite._schema` (the JSON Schema).
"""

from evalmark.errors import SuiteError
from evalmark.suite._application import (
    load_application,
    recorded_application,
    recorded_application_usage,
)
from evalmark.suite._loader import load_suite, resolve_suite_path
from evalmark.suite._model import (
    STRATEGY_KINDS,
    ApplicationSpec,
    EvaluationSpec,
    GateSpec,
    JudgeSpec,
    ReportSpec,
    StrategyKind,
    StrategySpec,
    Suite,
)
from evalmark.suite._runner import GateResult, SuiteRun, run_suite, verdict_rows
from evalmark.suite._schema import suite_file_schema

__all__ = [
    "STRATEGY_KINDS",
    "ApplicationSpec",
    "EvaluationSpec",
    "GateResult",
    "GateSpec",
    "JudgeSpec",
    "ReportSpec",
    "StrategyKind",
    "StrategySpec",
    "Suite",
    "SuiteError",
    "SuiteRun",
    "load_application",
    "load_suite",
    "recorded_application",
    "recorded_application_usage",
    "resolve_suite_path",
    "run_suite",
    "suite_file_schema",
    "verdict_rows",
]
