"""Errors raised while streaming a file through the scorer."""

from __future__ import annotations


class ScoringInputError(ValueError):
    """The input cannot be scored as given; the message names the file, the place and the field.

    ``where`` is a human description of the place ("line 12", "row group 3, row 40"), empty
    for whole-file problems; ``field`` is the column involved, empty when none is.
    """

    def __init__(self, path: str, where: str, field: str, problem: str, hint: str = "") -> None:
        self.path = path
        self.where = where
        self.field = field
        self.problem = problem
        parts = [path]
        if where:
            parts.append(where)
        if field:
            parts.append(f"field {field!r}")
        message = ", ".join(parts) + f": {problem}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


class OptionalDependencyError(ImportError):
    """An optional extra is needed for what was asked; the message says which to install."""

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the {module!r} package: install it with "
            f"`pip install 'evalmark[{extra}]'`"
        )
        self.extra = extra


def require_pyarrow(purpose: str) -> None:
    """Raise :class:`OptionalDependencyError` when pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise OptionalDependencyError("pyarrow", "arrow", purpose) from None
