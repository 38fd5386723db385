"""Gates: every rule that turns a report into pass or fail, and the assertions on a report.

The last stage of the pipeline (samples → the application → test cases → checks → results →
report → gates). A gate reads a report's figures and never changes it: its results
(:class:`~evalmark.report.GateResult`) travel beside the report, or on a new one
(``report.with_gates(...)``). Every pass-rate gate applies the one k-of-n rule
(:func:`evalmark.noise._gates.passes`) to the pass rate of cases.

Modules: :mod:`~evalmark.gates._rules` (pass rate of one report, of a suite, of a suite file's
``gate:`` with its budgets and pass@k / pass^k), :mod:`~evalmark.gates._budgets` (latency, token
and cost budgets, repeats), :mod:`~evalmark.gates._baseline` (the drop against a baseline) and
:mod:`~evalmark.gates._assertions` (``assert_that(report)``).
"""

from evalmark.gates._assertions import assert_that
from evalmark.gates._baseline import require_no_drop
from evalmark.gates._rules import (
    pass_rate_gate,
    require_budget,
    require_pass_rate,
    require_suite_pass_rate,
)

__all__ = [
    "assert_that",
    "pass_rate_gate",
    "require_budget",
    "require_no_drop",
    "require_pass_rate",
    "require_suite_pass_rate",
]
