"""Evaluation results in one import: one verdict (:mod:`~evalmark.data.result`) and a column of
them (:mod:`~evalmark.data.result_column`)."""

from evalmark.data.result import ErrorKind, EvaluationFault, EvaluationResult
from evalmark.data.result_column import ResultColumn, place_column

__all__ = ["ErrorKind", "EvaluationFault", "EvaluationResult", "ResultColumn", "place_column"]
