"""A judge calibration set: items a person labelled pass or fail, read from YAML, JSON or JSON
Lines.

Each item names the catalog prompt it is judged with, gives that prompt's variables and the
human label::

    {"id": "refund-window", "prompt": "correctness", "inputs": "How long ...?",
     "outputs": "30 days.", "reference_outputs": "The refund window is 30 days.",
     "label": "pass", "note": "paraphrase of the reference"}

``label`` is ``pass`` or ``fail`` (or true / false). ``prompt`` may be left out when the
command gives one. Every problem names the file, the line, the item and the field.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalmark._files.located import RawRecord
from evalmark._files.problems import raise_problems, suggest
from evalmark._files.read import read_records, require_format
from evalmark._files.source import read_bytes
from evalmark.errors import CalibrationError, Problem
from evalmark.models._prompts.catalog import get_prompt

__all__ = ["CalibrationSet", "LabelledItem", "load_labels"]

_OWN_KEYS = ("id", "prompt", "label", "note")
_LABELS = {
    "pass": True,
    "passed": True,
    "true": True,
    "fail": False,
    "failed": False,
    "false": False,
}


@dataclass(frozen=True, slots=True)
class LabelledItem:
    """One labelled item: its id, the prompt it is judged with, the prompt's variables, the
    human verdict (``label``: True for pass) and a note."""

    id: str
    prompt: str
    values: Mapping[str, Any]
    label: bool
    note: str = ""


@dataclass(frozen=True, slots=True)
class CalibrationSet:
    """The labelled items of a file, in file order."""

    items: tuple[LabelledItem, ...]
    source: str = ""
    prompts: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[LabelledItem]:
        return iter(self.items)


def _label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _LABELS.get(value.strip().casefold())
    return None


class _Checker:
    """Collects the problems of one file, each placed at its item and field."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[Problem] = []

    def report(
        self, record: RawRecord, ident: str | None, message: str, key: str | None = None
    ) -> None:
        line = record.position((key,))[0] if key else record.line
        label = f"item {record.index + 1}" + (f" ({ident!r})" if ident else "")
        if key:
            label += f".{key}"
        self.problems.append(Problem(message, path=self.where, line=line, record=label))


def _item(
    record: RawRecord, check: _Checker, prompt: str | None, seen: dict[str, int]
) -> LabelledItem | None:
    value = record.value
    if not isinstance(value, dict):
        check.report(
            record, None, "each item is a mapping: id, prompt, the prompt's variables, label"
        )
        return None
    ident = value.get("id")
    if not isinstance(ident, str) or not ident.strip():
        check.report(record, None, "expected a non-empty text id", "id")
        return None
    if ident in seen:
        check.report(record, ident, f"the id appears twice (first at item {seen[ident]})", "id")
        return None
    seen[ident] = record.index + 1
    name = value.get("prompt", prompt)
    if not isinstance(name, str):
        check.report(
            record, ident, "name the catalog prompt to judge with (prompt: correctness)", "prompt"
        )
        return None
    try:
        chosen = get_prompt(name)
    except KeyError as exc:
        check.report(record, ident, str(exc.args[0]), "prompt")
        return None
    before = len(check.problems)
    label = _label(value.get("label"))
    if label is None:
        check.report(record, ident, f"expected pass or fail, got {value.get('label')!r}", "label")
    note = value.get("note", "")
    if not isinstance(note, str):
        check.report(record, ident, "expected text", "note")
    values = {k: v for k, v in value.items() if k not in _OWN_KEYS}
    for key in values:
        if key not in chosen.variable_names:
            close = suggest(key, chosen.variable_names)
            hint = f"; did you mean {close!r}?" if close else ""
            check.report(
                record,
                ident,
                f"prompt {chosen.name!r} has no variable {key!r} (its variables: "
                f"{', '.join(chosen.variable_names)}){hint}",
                key,
            )
    missing = [v for v in chosen.required if values.get(v) is None]
    if missing:
        check.report(record, ident, f"prompt {chosen.name!r} needs {', '.join(missing)}")
    if len(check.problems) > before or label is None:
        return None
    return LabelledItem(ident, chosen.name, values, label, note if isinstance(note, str) else "")


def load_labels(path: str | os.PathLike[str], *, prompt: str | None = None) -> CalibrationSet:
    """The labelled items of ``path``; ``prompt`` is used for items that name none. Raises
    :class:`CalibrationError` listing every problem with its place."""
    source = Path(path)
    where = str(source)
    fmt = require_format(source, CalibrationError, " of labelled items")
    records = read_records(read_bytes(source, CalibrationError), where, fmt, CalibrationError)
    check = _Checker(where)
    seen: dict[str, int] = {}
    items = [item for record in records if (item := _item(record, check, prompt, seen))]
    if check.problems:
        raise_problems(check.problems, CalibrationError)
    used = tuple(dict.fromkeys(item.prompt for item in items))
    return CalibrationSet(tuple(items), where, used)
