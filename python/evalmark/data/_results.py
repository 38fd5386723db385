"""Evaluation results in one import: one verdict (:mod:`~evalmark.data._result`) and a column of
them (:mod:`~evalmark.data._result_column`)."""

from evalmark.data._result import ErrorKind, EvaluationFault, EvaluationResult
from evalmark.data._result_column import ResultColumn, place_column

__all__ = ["ErrorKind", "EvaluationFault", "EvaluationResult", "ResultColumn", "place_column"]
