"""Validating raw records: accepted keys with suggestions, friendly rules, conversion to
Structs, with every problem reported at its file, line, column and record.

Shared by the sample and the test-case loaders: ``convert_records`` turns the ``RawRecord``s
the readers return into msgspec Structs, collecting every problem with a suggestion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, TypeVar

import msgspec

from evalmark._files.located import PathKey, RawRecord
from evalmark._files.problems import describe_value, raise_problems, suggest
from evalmark.errors import DataFileError, Problem

__all__ = [
    "RecordSpec",
    "Report",
    "convert_records",
    "normalize_keys",
    "parse_validation_error",
    "path_label",
    "record_label",
    "value_at",
]

T = TypeVar("T")


# --------------------------------------------------------------------------- keys


@dataclass(frozen=True)
class RecordSpec:
    """The keys a kind of record accepts (kebab-case), with aliases and nested record kinds."""

    kind: str  # "sample", "test case", "tool call"...
    keys: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)
    nested: Mapping[str, RecordSpec] = field(default_factory=dict)  # key -> spec of a mapping
    nested_lists: Mapping[str, RecordSpec] = field(default_factory=dict)  # key -> list items

    def suggest(self, key: str) -> str | None:
        """The accepted key a misspelt or foreign ``key`` most likely means."""
        return suggest(key, self.keys, aliases=self.aliases)


def normalize_keys(
    value: Any,
    spec: RecordSpec,
    *,
    snake_case: bool,
    where: PathKey,
    report: Callable[[PathKey, str], None],
) -> Any:
    """Return ``value`` with keys in kebab-case, reporting unknown or doubled keys.

    ``snake_case`` accepts ``expected_output`` for ``expected-output`` (JSON and JSONL).
    Non-mapping values are returned unchanged (type errors are reported later).
    """
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for raw_key, item in value.items():
        if not isinstance(raw_key, str):
            report(where, f"keys must be strings, found {describe_value(raw_key)} {raw_key!r}")
            continue
        key = raw_key.replace("_", "-") if snake_case else raw_key
        if key not in spec.keys:
            suggestion = spec.suggest(raw_key)
            if suggestion is not None:
                hint = f"did you mean '{suggestion}'?"
            else:
                hint = "the accepted keys are " + ", ".join(f"'{k}'" for k in spec.keys)
            report((*where, raw_key), f"unknown key '{raw_key}' in a {spec.kind}; {hint}")
            continue
        if key in spelled:
            report(
                (*where, raw_key),
                f"'{raw_key}' and '{spelled[key]}' are the same key; keep only one",
            )
            continue
        spelled[key] = raw_key
        if key in spec.nested:
            item = normalize_keys(
                item, spec.nested[key], snake_case=snake_case, where=(*where, key), report=report
            )
        elif key in spec.nested_lists and isinstance(item, list):
            inner = spec.nested_lists[key]
            item = [
                normalize_keys(
                    element, inner, snake_case=snake_case, where=(*where, key, i), report=report
                )
                for i, element in enumerate(item)
            ]
        out[key] = item
    return out


# --------------------------------------------------------------------------- conversion

_MSGSPEC_ERROR = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_TYPE_NAMES = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "null": "null",
    "array": "a list",
    "object": "a mapping",
    "decimal": "a decimal number",
}
_GOT_NAMES = {"bool": "a boolean", "null": "null (nothing)"}


def parse_validation_error(exc: msgspec.ValidationError) -> tuple[str, PathKey]:
    """Split a msgspec validation error into a readable message and the path it points at."""
    match = _MSGSPEC_ERROR.match(str(exc))
    assert match is not None
    message = match.group("message")
    where: PathKey = tuple(
        name if name else int(number)
        for name, number in _PATH_PART.findall(match.group("path") or "")
    )
    expected = re.match(r"Expected `([^`]*)`, got `([^`]*)`(.*)$", message)
    if expected:
        alternatives = [t.strip() for t in expected.group(1).split("|")]
        if len(alternatives) > 1 and "null" in alternatives:
            alternatives.remove("null")  # null only stands for "not given"
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in alternatives)
        got = _GOT_NAMES.get(expected.group(2), _TYPE_NAMES.get(expected.group(2), "a value"))
        message = f"expected {wanted}, got {got}{expected.group(3)}"
    return message, where


def path_label(where: PathKey) -> str:
    """Render a path such as ('expected-facts', 2) as 'expected-facts[2]'."""
    out = ""
    for part in where:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def value_at(value: Any, where: PathKey) -> Any:
    """The value found at ``where`` inside ``value``, or None if the path does not exist."""
    for part in where:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


# --------------------------------------------------------------------------- validation

Report = Callable[..., None]


def record_label(record: RawRecord, kind: str, name_key: str) -> str:
    """ "sample 'refund-window'" when the record has a usable name, else "sample #3"."""
    value = record.value
    if isinstance(value, dict):
        name = value.get(name_key)
        if isinstance(name, str) and name.strip():
            return f"{kind} '{name}'"
    return f"{kind} #{record.index + 1}"


def type_hint(got: object, message: str, yaml_source: bool) -> str:
    """A suggestion for a type error, given the offending value."""
    wanted = message.split(", got")[0]
    if "a list" in wanted and isinstance(got, str):
        return '; write it as a list, e.g. ["..."]'
    if wanted.startswith("expected a string") and yaml_source:
        if isinstance(got, bool):
            return "; YAML reads yes/no/on/off/true/false as booleans: put the value in quotes"
        if isinstance(got, int | float | date | datetime | time):
            return "; put the value in quotes so YAML reads it as text"
    if wanted.startswith("expected a string") and isinstance(got, list | dict):
        return "; write the text on one line or as a block (key: |)"
    return ""


def convert_records(
    records: list[RawRecord],
    *,
    path: str,
    spec: RecordSpec,
    target: type[T],
    error: type[DataFileError],
    snake_case: bool,
    rules: Callable[[dict[str, Any], Report], None] | None = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
    unique_key: str | None = None,
    name_key: str = "name",
) -> list[T]:
    """Validate raw records and convert them to ``target``, reporting every problem found.

    Unknown keys get a suggestion, ``rules`` add checks with friendlier messages than the
    type checks, and ``unique_key`` (a field name) must not repeat.
    """
    problems: list[Problem] = []
    converted: list[T] = []
    first_use: dict[Any, int] = {}
    for record in records:
        label = record_label(record, spec.kind, name_key)
        before = len(problems)

        def report(
            where: PathKey,
            message: str,
            *,
            of_value: bool = False,
            record: RawRecord = record,
            label: str = label,
        ) -> None:
            line, column = record.position(where, of_value=of_value)
            problems.append(Problem(message, path=path, line=line, column=column, record=label))

        value = record.value
        if not isinstance(value, dict):
            report(
                (),
                f"each {spec.kind} must be a mapping of keys to values; found "
                f"{describe_value(value)}",
            )
            continue
        fields = normalize_keys(value, spec, snake_case=snake_case, where=(), report=report)
        if len(problems) == before and rules is not None:
            rules(fields, report)
        if len(problems) > before:
            continue
        try:
            item = msgspec.convert(fields, target, dec_hook=dec_hook)
        except msgspec.ValidationError as exc:
            message, where = parse_validation_error(exc)
            message += type_hint(value_at(fields, where), message, not snake_case)
            prefix = f"{path_label(where)}: " if where else ""
            report(where, prefix + message, of_value=True)
            continue
        if unique_key is not None:
            key = getattr(item, unique_key.replace("-", "_"))
            if key is not None and key in first_use:
                report(
                    (unique_key,),
                    f"duplicate {unique_key} '{key}' (first used at line {first_use[key]}); "
                    f"each {spec.kind} needs its own {unique_key}: rename one",
                    of_value=True,
                )
                continue
            first_use[key] = record.line
        converted.append(item)
    raise_problems(problems, error)
    return converted
