"""The root of every evalmark exception."""

from __future__ import annotations

__all__ = ["EvalmarkError"]


class EvalmarkError(Exception):
    """The root of every error evalmark raises on purpose."""
