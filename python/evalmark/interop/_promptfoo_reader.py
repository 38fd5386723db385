"""Reading one promptfoo file: its value, the line of any part of it (found only when a
problem is reported), the losses it refuses, and promptfoo's ``{{ name }}`` substitution."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.located import RawRecord
from evalmark._files.yaml_read import read_yaml_document
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Losses

__all__ = ["Reader", "render"]

_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class Reader:
    """One promptfoo file being read: its record (with positions) and the losses allowed."""

    def __init__(self, path: Path, losses: Losses, value: Any = None) -> None:
        """``value``: the file's value when the caller decoded it already."""
        self.path = path
        self.losses = losses
        self.files = [path]
        self._record: RawRecord | None = None
        if isinstance(value, Mapping):
            self.value: Mapping[str, Any] = value
            return
        data = path.read_bytes()
        if path.suffix == ".json":  # fast: lines are found only when a problem is reported
            value = _json(data)
        if value is None:
            self._record = read_yaml_document(data, str(path), ImportFormatError)
            value = self._record.value if self._record is not None else None
        if not isinstance(value, Mapping):
            raise ImportFormatError(
                [Problem("the file holds no promptfoo config or results object", path=str(path))]
            )
        self.value = value

    def line(self, where: tuple[str | int, ...]) -> int | None:
        """The line where the part at ``where`` starts (None when it cannot be found)."""
        if self._record is None:
            try:
                self._record = read_yaml_document(
                    self.path.read_bytes(), str(self.path), ImportFormatError
                )
            except ImportFormatError:
                if self.path.suffix != ".json":
                    raise
                # JSON that YAML cannot read (a character escaped as a surrogate pair): the
                # problem is reported without its line rather than hidden behind YAML's
                return None
        if self._record is None:
            return None
        return self._record.position(where)[0] if where else self._record.line

    def error(self, message: str, where: tuple[str | int, ...]) -> ImportFormatError:
        """An :class:`ImportFormatError` at the part at ``where``."""
        line = self.line(where)
        return ImportFormatError(
            [Problem(message, path=str(self.path), line=line, record=_dotted(where))]
        )

    def refuse(self, name: str, what: str, where: tuple[str | int, ...]) -> None:
        """Stop unless the loss ``name`` is allowed (see :class:`Losses`)."""
        self.losses.refuse(name, what, str(self.path), self.line(where), _dotted(where))


def _json(data: bytes) -> Any:
    """The JSON value of ``data`` (None when it is not JSON): msgspec's decoder, else the
    standard library's for what msgspec refuses (``NaN``, a lone surrogate's escape)."""
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError:
        pass
    try:
        return json.loads(data)
    except ValueError:
        return None


def _dotted(where: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where).lstrip(".")


def render(reader: Reader, template: str, variables: Mapping[str, Any], where: Any) -> str:
    """``template`` with each ``{{ name }}`` substituted; any other Nunjucks syntax (filters,
    tags) is refused."""
    if "{" not in template:  # nothing to substitute, nothing to refuse
        return template
    rest = _VAR.sub("", template)
    if "{{" in rest or "{%" in rest:
        reader.refuse(
            "prompt-template",
            "the template uses Nunjucks beyond {{ name }} (filters, tags), which evalmark "
            "does not render",
            where,
        )

    def value(match: re.Match[str]) -> str:
        found = variables.get(match.group(1), "")
        return found if isinstance(found, str) else str(found)

    return _VAR.sub(value, template)
