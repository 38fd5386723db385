"""Evaluation results in one import: one verdict (:mod:`~evalmark.results._result`) and a column of
them (:mod:`~evalmark.results._result_column`)."""

from evalmark.results._result import ErrorKind, EvaluationFault, EvaluationResult
from evalmark.results._result_column import ResultColumn, place_column

__all__ = ["ErrorKind", "EvaluationFault", "EvaluationResult", "ResultColumn", "place_column"]
