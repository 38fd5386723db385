"""Errors raised while streaming a file through the scorer."""

from __future__ import annotations

from evalmark.errors import OptionalDependencyError, Problem, ScoringInputError

__all__ = ["OptionalDependencyError", "ScoringInputError", "input_error", "require_pyarrow"]


def input_error(problem: Problem, hint: str = "") -> ScoringInputError:
    """A problem the file readers found in a scoring input, as a :class:`ScoringInputError`."""
    where = f"line {problem.line}" if problem.line is not None else ""
    return ScoringInputError(problem.path or "", where, "", problem.message, hint)


def require_pyarrow(purpose: str) -> None:
    """Raise :class:`OptionalDependencyError` when pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise OptionalDependencyError("pyarrow", "arrow", purpose) from None
