"""JSON Schema checks for judge replies, through the optional ``jsonschema`` package (the
``judge`` extra): evalmark imports and judges with the built-in shapes without it."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.errors import OptionalDependencyError

__all__ = ["check_output_schema", "schema_violation"]


def _jsonschema() -> Any:
    try:
        return importlib.import_module("jsonschema")
    except ImportError:
        raise OptionalDependencyError(
            "jsonschema", "judge", "a judge with an output schema"
        ) from None


def check_output_schema(schema: Mapping[str, Any]) -> None:
    """A ``ValueError`` naming the place when ``schema`` is not a valid JSON Schema."""
    jsonschema = _jsonschema()
    validator = jsonschema.validators.validator_for(schema)
    try:
        validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(
            f"output_schema is not a valid JSON Schema at {_path(exc.absolute_path)}: {exc.message}"
        ) from None


def _path(parts: Sequence[Any]) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_violation(instance: Any, schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """(path, message) of the first violation of ``schema`` by ``instance`` (the shallowest,
    then in path order, so the same reply always names the same place), or None."""
    jsonschema = _jsonschema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(
        validator.iter_errors(instance),
        key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path], e.message),
    )
    if not errors:
        return None
    return _path(list(errors[0].absolute_path)), errors[0].message
