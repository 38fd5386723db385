"""Evaluation results: what a check says about one test case (score, verdict, explanation,
fault), and the column of results of one check over a run. The stage between the checks that
produce them and the report that gathers them.

Modules: :mod:`~evalmark.results._result` (:class:`~evalmark.EvaluationResult` and
:class:`~evalmark.EvaluationFault`), :mod:`~evalmark.results._result_column` (a check's results
over a run, stored as columns), gathered in :mod:`~evalmark.results._results`.

This package has no names of its own: import them from the top level
(``from evalmark import EvaluationResult``).
"""

__all__: list[str] = []
