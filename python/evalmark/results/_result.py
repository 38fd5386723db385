"""``EvaluationResult``: the verdict of one strategy on one sample's output (one value; a whole
column of them is :class:`~evalmark.results._result_column.ResultColumn`).

A result is immutable. It holds ``passed``, a ``score`` in [0, 1], an ``explanation`` a person
can act on, ``metadata`` (JSON-like values, e.g. per-member verdicts of a composite) and, when
something went wrong rather than merely failed, an ``error`` (:class:`EvaluationFault`): the
function under test raised, a strategy raised, or a judge's reply could not be parsed. Errors
are counted apart from failures in reports.

Constructors::

    EvaluationResult.passing(0.93)
    EvaluationResult.failing(0.41, "token F1 0.41 < 0.50")
    EvaluationResult.failing("the answer is empty")        # score 0.0
    EvaluationResult.from_bool(ok)

``result.passed`` is the boolean verdict.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, overload

__all__ = ["ErrorKind", "EvaluationFault", "EvaluationResult"]

ErrorKind = Literal["function", "strategy", "judge", "parse"]
_ERROR_KINDS: tuple[str, ...] = ("function", "strategy", "judge", "parse")


@dataclass(frozen=True, slots=True)
class EvaluationFault:
    """What went wrong while producing a result (as opposed to an output that failed a check).

    ``kind``: ``"function"`` (the function under test raised), ``"strategy"`` (a strategy
    raised), ``"judge"`` (the judge model call failed) or ``"parse"`` (the judge's reply could
    not be read; ``raw`` holds it). ``type`` is the exception's class name. ``exception`` is the
    exception object itself when one was caught in this process (not serialized, not compared).
    """

    kind: ErrorKind
    type: str
    message: str
    raw: str | None = None
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in _ERROR_KINDS:
            raise ValueError(
                f"error kind must be one of {', '.join(_ERROR_KINDS)}, got {self.kind!r}"
            )

    @classmethod
    def from_exception(cls, kind: ErrorKind, exc: BaseException) -> EvaluationFault:
        """The error describing ``exc``."""
        raw = getattr(exc, "raw", None)
        return cls(
            kind=kind,
            type=type(exc).__name__,
            message=str(exc) or type(exc).__name__,
            raw=raw if isinstance(raw, str) else None,
            exception=exc,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the exception object is left out)."""
        out: dict[str, Any] = {"kind": self.kind, "type": self.type, "message": self.message}
        if self.raw is not None:
            out["raw"] = self.raw
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvaluationFault:
        """Read back :meth:`to_dict`."""
        return cls(
            kind=data["kind"],
            type=str(data["type"]),
            message=str(data["message"]),
            raw=data.get("raw"),
        )


def _check_score(score: object) -> float:
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise TypeError(f"an evaluation score must be a number in [0, 1], got {score!r}")
    value = float(score)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(
            f"an evaluation score must be a number in [0, 1], got {score!r}; "
            "rescale it (e.g. grade 4 of 5 -> 0.75)"
        )
    return value


class EvaluationResult:
    """The verdict of one strategy on one output. Immutable; see the module docstring."""

    __slots__ = ("_verdict", "error", "explanation", "metadata", "score")

    _verdict: bool
    score: float
    explanation: str
    metadata: Mapping[str, Any]
    error: EvaluationFault | None

    def __init__(
        self,
        passed: bool,
        score: float,
        explanation: str = "",
        metadata: Mapping[str, Any] | None = None,
        *,
        error: EvaluationFault | None = None,
    ) -> None:
        if not isinstance(passed, bool):
            raise TypeError(f"passed must be a bool, got {passed!r}")
        if not isinstance(explanation, str):
            raise TypeError(f"explanation must be a str, got {type(explanation).__name__}")
        set_ = object.__setattr__
        set_(self, "_verdict", passed)
        set_(self, "score", _check_score(score))
        set_(self, "explanation", explanation)
        set_(self, "metadata", MappingProxyType(dict(metadata or {})))
        set_(self, "error", error)

    @classmethod
    def _unchecked(
        cls,
        passed: bool,
        score: float,
        explanation: str,
        metadata: Mapping[str, Any],
        error: EvaluationFault | None,
    ) -> EvaluationResult:
        # Fast path for batch strategies whose values are already valid.
        result = cls.__new__(cls)
        set_ = object.__setattr__
        set_(result, "_verdict", passed)
        set_(result, "score", score)
        set_(result, "explanation", explanation)
        set_(result, "metadata", metadata)
        set_(result, "error", error)
        return result

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"EvaluationResult is immutable (cannot set {name!r}); build a new one or use "
            "with_explanation(...) / with_metadata(...)"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError("EvaluationResult is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and copy through the constructor: the slots cannot be set from outside.
        return (
            _restore,
            (self._verdict, self.score, self.explanation, dict(self.metadata), self.error),
        )

    # ------------------------------------------------------------------ constructors

    @classmethod
    def passing(
        cls, score: float = 1.0, explanation: str = "", metadata: Mapping[str, Any] | None = None
    ) -> EvaluationResult:
        """A passing result with ``score`` (default 1.0)."""
        return cls(True, score, explanation, metadata)

    @overload
    @classmethod
    def failing(
        cls, score: float, /, explanation: str = "", metadata: Mapping[str, Any] | None = None
    ) -> EvaluationResult: ...
    @overload
    @classmethod
    def failing(
        cls, explanation: str, /, *, metadata: Mapping[str, Any] | None = None
    ) -> EvaluationResult: ...
    @classmethod
    def failing(
        cls,
        score: float | str = 0.0,
        /,
        explanation: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> EvaluationResult:
        """A failing result: ``failing(score, explanation)`` or ``failing(explanation)`` (score
        0)."""
        if isinstance(score, str):
            return cls(False, 0.0, score, metadata)
        return cls(False, score, explanation, metadata)

    @classmethod
    def from_bool(cls, passed: bool, explanation: str = "") -> EvaluationResult:
        """Score 1.0 when ``passed``, else 0.0."""
        return cls(bool(passed), 1.0 if passed else 0.0, explanation)

    @classmethod
    def from_error(
        cls, kind: ErrorKind, exc: BaseException, *, explanation: str | None = None
    ) -> EvaluationResult:
        """A failed result (score 0) carrying ``exc`` as a typed :class:`EvaluationFault`."""
        error = EvaluationFault.from_exception(kind, exc)
        text = explanation if explanation is not None else f"{error.type}: {error.message}"
        return cls(False, 0.0, text, error=error)

    # ------------------------------------------------------------------ derived values

    def with_explanation(self, explanation: str) -> EvaluationResult:
        """A copy with another explanation."""
        return EvaluationResult(
            self._verdict, self.score, explanation, self.metadata, error=self.error
        )

    def with_metadata(
        self, metadata: Mapping[str, Any] | None = None, **more: Any
    ) -> EvaluationResult:
        """A copy whose metadata is this one's updated with ``metadata`` and ``more``."""
        merged = {**self.metadata, **(metadata or {}), **more}
        return EvaluationResult(
            self._verdict, self.score, self.explanation, merged, error=self.error
        )

    @property
    def passed(self) -> bool:
        """The verdict: True when the output passed the check."""
        return self._verdict

    @property
    def is_error(self) -> bool:
        """True when the result records an error rather than a plain failure."""
        return self.error is not None

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"fail"`` or ``"error"``."""
        if self.error is not None:
            return "error"
        return "pass" if self._verdict else "fail"

    # ------------------------------------------------------------------ values

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; empty fields are left out."""
        out: dict[str, Any] = {"passed": self._verdict, "score": self.score}
        if self.explanation:
            out["explanation"] = self.explanation
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.error is not None:
            out["error"] = self.error.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvaluationResult:
        """Read back :meth:`to_dict`."""
        error = data.get("error")
        return cls(
            bool(data["passed"]),
            float(data["score"]),
            str(data.get("explanation", "")),
            data.get("metadata"),
            error=EvaluationFault.from_dict(error) if error is not None else None,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvaluationResult):
            return NotImplemented
        return (
            self._verdict == other._verdict
            and self.score == other.score
            and self.explanation == other.explanation
            and dict(self.metadata) == dict(other.metadata)
            and self.error == other.error
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [f"passed={self._verdict}", f"score={self.score!r}"]
        if self.explanation:
            parts.append(f"explanation={self.explanation!r}")
        if self.metadata:
            parts.append(f"metadata={dict(self.metadata)!r}")
        if self.error is not None:
            parts.append(f"error={self.error!r}")
        return f"EvaluationResult({', '.join(parts)})"


def _restore(
    passed: bool,
    score: float,
    explanation: str,
    metadata: Mapping[str, Any],
    error: EvaluationFault | None,
) -> EvaluationResult:
    return EvaluationResult._unchecked(
        passed, score, explanation, MappingProxyType(dict(metadata)), error
    )
