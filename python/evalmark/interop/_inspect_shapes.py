"""The typed shapes of an inspect_ai sample's ``output`` and ``scores`` that the log's decoding
reads in the same pass as the sample: the answer text (``output.completion``) and each
score's ``value`` decoded, every other field of inspect's kept as JSON text. They declare
inspect's fields and refuse any other (``forbid_unknown_fields``): a log whose outputs or
scores hold another field, or are of another type, is decoded again with both as JSON text
(:func:`evalmark.interop._inspect_log.read_log`), so nothing the log holds is dropped.

A field the log leaves out is ``UNSET``; :func:`plain` gives the value as the log wrote it
(a mapping of the fields present, in inspect's order).
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["Output", "Score", "plain", "typed_value"]

_ANY = msgspec.json.Decoder()


class Output(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A sample's ``output`` (inspect's ``ModelOutput``), its answer text decoded."""

    model: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    choices: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    completion: Any = msgspec.UNSET
    usage: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    input_context_tokens: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    time: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    metadata: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    error: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]


class Score(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One recorded score (inspect's ``Score``), its value decoded."""

    value: Any = msgspec.UNSET
    answer: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    explanation: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    metadata: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]
    history: msgspec.Raw = msgspec.UNSET  # type: ignore[assignment]


def _fields(value: Output | Score) -> dict[str, Any]:
    """The fields the log holds, decoded, in the struct's order."""
    found: dict[str, Any] = {}
    for name in value.__struct_fields__:
        field = getattr(value, name)
        if field is not msgspec.UNSET:
            found[name] = _ANY.decode(field) if type(field) is msgspec.Raw else field
    return found


def plain(value: Any) -> Any:
    """``value`` as decoding the log's JSON text gives it when it is a typed output or a
    mapping of typed scores; any other value as it is."""
    kind = type(value)
    if kind is Output:
        return _fields(value)
    if kind is dict and value and type(next(iter(value.values()))) is Score:
        return {
            name: _fields(score) if type(score) is Score else score for name, score in value.items()
        }
    return value


def typed_value(score: Score) -> Any:
    """A typed score's value (None when the log leaves it out, as a plain score's ``get``)."""
    value = score.value
    return None if value is msgspec.UNSET else value
