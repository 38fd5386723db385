"""Suite files: one YAML file that says what to evaluate, how, and when the run fails.

A suite names its samples, the application under test (recorded builds replayed from cassettes,
or a live ``module:function``), the strategies (checks), the judge behind the judged checks, the
gate, and where the reports go. ``evalmark run SUITE`` and the pytest plugin read suites with
:func:`evalmark.load_suite`; every problem is reported as a ``SuiteError`` naming the file, the
line, the key and what to write instead. Input paths in a suite (samples, cassettes, baseline) are
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

from evalmark.suite._application import load_application, recorded_application
from evalmark.suite._model import Suite
from evalmark.suite._runner import SuiteRun
from evalmark.suite._schema import suite_file_schema

__all__ = [
    "Suite",
    "SuiteRun",
    "load_application",
    "recorded_application",
    "suite_file_schema",
]
