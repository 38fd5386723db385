"""A suite file being checked: its parsed value with the position of every key, the problems
found so far, and the checks every part of a suite shares (accepted keys with "did you mean",
strings, mappings, lists of strings)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalmark._files.located import PathKey, RawRecord
from evalmark._files.problems import MAX_PROBLEMS, describe_value, suggest
from evalmark._files.validate import path_label
from evalmark.errors import Problem, SuiteError
from evalmark.strategies._kinds import option_schema

__all__ = ["ALIASES", "SuiteDocument", "whole"]

# Words people reach for, and the key they mean.
ALIASES: Mapping[str, str] = {
    "checks": "strategies",
    "metrics": "strategies",
    "evaluators": "strategies",
    "scorers": "strategies",
    "dataset": "samples",
    "datasets": "samples",
    "golden": "samples",
    "app": "application",
    "function-under-test": "application",
    "target": "application",
    "threshold": "pass-rate",
    "min-pass-rate": "pass-rate",
    "reports": "report",
    "output": "dir",
    "directory": "dir",
    "format": "formats",
    "workers": "concurrency",
    "parallel": "concurrency",
    "recordings": "builds",
    "cassettes": "builds",
    "callable": "function",
    "model": "model-id",
    "system": "system-prompt",
    "prompt": "system-prompt",
    "type": "kind",
    "flip": "flip-rate",
    "noise": "flip-rate",
    "suites": "evaluations",
    "parts": "evaluations",
}


class SuiteDocument:
    """The parsed suite with the line and column of every key and list item."""

    def __init__(self, path: str, record: RawRecord) -> None:
        self.path = path
        self.value = record.value
        self._record = record
        self.problems: list[Problem] = []
        self.suggested: set[str] = set()  # keys already offered for a misspelling
        self._empty: set[PathKey] = set()  # keys given without a value: one problem each
        self.name = Path(path).name

    def where(self, key: PathKey) -> tuple[int, int]:
        """The line and column of ``key``, or of the nearest enclosing key."""
        return self._record.position(key)

    def report(self, key: PathKey, message: str) -> None:
        """Note a problem at ``key``; the message is prefixed with the key's path. A key
        given without a value has that one problem only."""
        if key in self._empty:
            return
        line, column = self.where(key)
        label = path_label(key)
        text = f"{label}: {message}" if label else message
        self.problems.append(Problem(text, path=self.path, line=line, column=column))

    def given_empty(self, key: PathKey) -> bool:
        """True when ``key`` is in the file without a value (a problem already noted)."""
        return key in self._empty

    def at(self, key: PathKey) -> str:
        """``file:line`` of ``key``."""
        return f"{self.path}:{self.where(key)[0]}"

    def raise_problems(self) -> None:
        """Raise a ``SuiteError`` listing the problems noted, if there are any."""
        if self.problems:
            shown = self.problems[:MAX_PROBLEMS]
            raise SuiteError(shown, more=len(self.problems) - len(shown))

    def suggest(self, word: object, accepted: Sequence[str]) -> str | None:
        """The accepted word a misspelt or foreign ``word`` most likely means."""
        return suggest(str(word), accepted, aliases=ALIASES)

    def check_keys(
        self, key: PathKey, value: Mapping[Any, Any], accepted: Sequence[str], what: str
    ) -> None:
        """Report every key of ``value`` that ``accepted`` does not hold, with a suggestion,
        and every accepted key given without a value (``key:`` alone, or ``null``): a key
        is given with its value or left out, so that a value forgotten (``pass-rate:``) is
        never read as the default."""
        for raw in value:
            if raw in accepted:
                if value[raw] is None:
                    self.report((*key, raw), "no value given; write one, or leave the key out")
                    self._empty.add((*key, raw))
                continue
            if not isinstance(raw, str):
                self.report(key, f"keys must be strings, found {describe_value(raw)} {raw!r}")
                continue
            suggestion = self.suggest(raw, accepted)
            if suggestion:
                self.suggested.add(suggestion)
            hint = (
                f"did you mean '{suggestion}'?"
                if suggestion
                else "the accepted keys are " + ", ".join(f"'{k}'" for k in accepted)
            )
            self.report((*key, raw), f"unknown key '{raw}' in the {what}; {hint}")

    def string(self, key: PathKey, value: Any, *, default: str) -> str:
        """``value`` if it is a non-empty string (``default`` when absent), else a problem."""
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            found = "an empty string" if isinstance(value, str) else describe_value(value)
            self.report(key, f"expected a non-empty string, found {found}; put it in quotes")
            return default
        return value

    def mapping(self, key: PathKey, value: Any, example: str) -> dict[Any, Any] | None:
        """``value`` if it is a mapping (None when absent), else a problem."""
        if value is None:
            return None
        if not isinstance(value, dict):
            self.report(
                key, f"expected a mapping, found {describe_value(value)}; for example {example}"
            )
            return None
        return value

    def section(
        self, key: PathKey, value: Any, example: str, accepted: Sequence[str], what: str
    ) -> dict[Any, Any] | None:
        """A part of the suite given as a mapping (None when absent or not a mapping), its
        keys checked against ``accepted``."""
        mapping = self.mapping(key, value, example)
        if mapping is not None:
            self.check_keys(key, mapping, accepted, what)
        return mapping

    def option(
        self,
        mapping: Mapping[Any, Any],
        key: PathKey,
        name: str,
        default: Any,
        check: Callable[[Any], str | None],
        message: str,
    ) -> Any:
        """``mapping[name]`` when ``check`` accepts it (``default`` when absent or given
        without a value, which :meth:`check_keys` reports); otherwise the problem ``message``
        at the option, and ``default``. A whole-number option reads ``1.0`` as 1."""
        value = mapping.get(name)
        if value is None:
            return default
        if option_schema(check).get("type") == "integer":
            value = whole(value)
        if check(value) is not None:
            self.report((*key, name), message)
            return default
        return value

    def string_list(self, key: PathKey, value: Any, example: str) -> tuple[str, ...]:
        """``value`` as a tuple of strings (one string is a list of one), else a problem."""
        if value is None:
            return ()
        if isinstance(value, str) and value:
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.report(key, f"expected a string or a list of strings; for example {example}")
            return ()
        return tuple(value)


def whole(value: Any) -> Any:
    """``value`` as an ``int`` when it is a float with no fraction (``1.0`` is 1, as JSON
    Schema's ``integer`` has it), else ``value`` itself."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
