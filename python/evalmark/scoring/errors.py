"""Errors raised while streaming a file through the scorer."""

from __future__ import annotations

from evalmark.errors import OptionalDependencyError, ScoringInputError

__all__ = ["OptionalDependencyError", "ScoringInputError", "require_pyarrow"]


def require_pyarrow(purpose: str) -> None:
    """Raise :class:`OptionalDependencyError` when pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise OptionalDependencyError("pyarrow", "arrow", purpose) from None
