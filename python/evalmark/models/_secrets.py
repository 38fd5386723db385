"""Keeping credentials out of cassettes: found by where they sit, by value and by format.

Before an entry is hashed and written, :class:`SecretRedactor` replaces with ``[REDACTED]``:

- the value of every field whose name says it holds a credential (:func:`sensitive_name`:
  ``api_key``, ``api-key``, ``Authorization``, ``x-auth-token``, ``client_secret``,
  ``password``...), at any depth of the request or the reply, also inside a string that holds
  a JSON text (OpenAI's tool-call ``arguments``; re-encoded only when something is replaced);
- every value the model was configured with (the client's API key, sensitive headers and
  parameters), wherever it reappears (a prompt, a reply), also without its prefix
  (``proj-…`` of ``sk-proj-…``);
- text matching a credential format (:data:`BUILTIN_PATTERNS`) or a pattern of the user.

Each removal is listed in the entry's ``redacted`` field (where, and why). A redacted value is
never written: the encoded line is checked once more before writing, and ``SecretFound`` is
raised if anything known slipped through. Finding credentials (names, values, formats) is
:mod:`evalmark.models._secret_scan`, whose public names are re-exported here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

import msgspec

from evalmark.models._cassette_file import Redaction
from evalmark.models._secret_scan import (
    BUILTIN_PATTERNS,
    LITERAL_PREFIXES,
    MIN_TAIL_LENGTH,
    MIN_VALUE_LENGTH,
    REDACTED,
    SecretScanner,
    compile_user_pattern,
    has_sensitive_name,
    held_whole,
    redacted_whole,
    secret_variants,
    sensitive_name,
    sensitive_values,
)

__all__ = [
    "BUILTIN_PATTERNS",
    "MIN_TAIL_LENGTH",
    "MIN_VALUE_LENGTH",
    "REDACTED",
    "Redactor",
    "SecretRedactor",
    "SecretScanner",
    "redact_pattern",
    "secret_variants",
    "sensitive_name",
    "sensitive_values",
]

Redactor: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]


class SecretRedactor:
    """Replaces credentials in request and reply data with ``[REDACTED]`` and says where.

    ``patterns``: regular expressions of the user, on top of the built-in formats.
    ``values``: secrets to find wherever they appear (see :func:`secret_variants`).
    """

    def __init__(
        self, patterns: Iterable[str | re.Pattern[str]] = (), values: Iterable[str] = ()
    ) -> None:
        self._patterns = tuple(patterns)
        self.scanner = SecretScanner(self._patterns)
        self._values = frozenset(values)
        found = {variant for value in self._values for variant in secret_variants(value)}
        self.variants = tuple(sorted(found, key=lambda v: (-len(v), v)))
        self._json_variants = _json_forms(self.variants)
        self._keys: dict[str, bool] = {}

    def with_values(self, values: Iterable[str]) -> SecretRedactor:
        """This redactor, also finding ``values`` (itself when they add nothing)."""
        extra = frozenset(values) - self._values
        if not extra:
            return self
        redactor = SecretRedactor.__new__(SecretRedactor)
        redactor._patterns = self._patterns
        redactor.scanner = self.scanner
        redactor._values = self._values | extra
        found = set(self.variants) | {v for value in extra for v in secret_variants(value)}
        redactor.variants = tuple(sorted(found, key=lambda v: (-len(v), v)))
        redactor._json_variants = _json_forms(redactor.variants)
        redactor._keys = {}
        return redactor

    def clean(self, data: bytes, value: Any) -> bool:
        """A quick test that :meth:`redact` would find nothing in ``value``, whose canonical
        JSON is ``data``: no literal start of a built-in format and no configured value in the
        text, no credential field name, and no user pattern (those are always looked for)."""
        if self._patterns:
            return False
        if LITERAL_PREFIXES.search(data) is not None:
            return False
        if any(variant in data for variant in self._json_variants):
            return False
        if _EMBEDDED_OBJECT in data:
            return False  # a JSON object inside a string: its field names are looked at too
        return not has_sensitive_name(value)

    def redact(self, value: dict[str, Any], root: str) -> tuple[dict[str, Any], list[Redaction]]:
        """``value`` with every credential replaced, and where each was. ``value`` itself is
        returned (not copied) when nothing is found."""
        if self.clean(_encoder.encode(value), value):
            return value, []
        found: list[Redaction] = []
        result = self._walk(value, root, found)
        assert isinstance(result, dict)
        return result, found

    def _walk(self, value: Any, path: str, found: list[Redaction]) -> Any:
        # Returns ``value`` itself when nothing in it changes, so clean data is never copied.
        if isinstance(value, str):
            inner = embedded_json(value)
            if inner is not None:  # a JSON text in a string (a tool call's arguments)
                walked = self._walk(inner, path, found)
                if walked is not inner:
                    value = _dump_like(value, walked)
            return self._text(value, path, found)
        if isinstance(value, dict):
            out: dict[str, Any] | None = None
            for position, (key, item) in enumerate(value.items()):
                new_key = self._text(key, f"{path} (a key)", found) if self._suspect(key) else key
                where = f"{path}.{new_key}"
                if sensitive_name(key) and held_whole(item):
                    whole = redacted_whole(item)
                    new = item if item == whole else whole
                    if new is not item:
                        found.append(Redaction(where, "field name"))
                else:
                    new = self._walk(item, where, found)
                if out is None and (new is not item or new_key is not key):
                    out = dict(list(value.items())[:position])
                if out is not None:
                    out[_free_key(out, new_key)] = new
            return value if out is None else out
        if isinstance(value, list | tuple):  # a reply's tool calls are a tuple
            items: list[Any] | None = None
            for position, item in enumerate(value):
                new = self._walk(item, f"{path}[{position}]", found)
                if items is None and new is not item:
                    items = list(value[:position])
                if items is not None:
                    items.append(new)
            return value if items is None else items
        return value

    def _suspect(self, key: str) -> bool:
        known = self._keys.get(key)
        if known is None:
            known = any(variant in key for variant in self.variants) or (
                self.scanner.first_hit(key) is not None
            )
            if len(self._keys) < 4096:
                self._keys[key] = known
        return known

    def _text(self, text: str, path: str, found: list[Redaction]) -> str:
        for variant in self.variants:
            if variant in text:
                text = text.replace(variant, REDACTED)
                if not found or found[-1] != Redaction(path, "configured secret"):
                    found.append(Redaction(path, "configured secret"))
        spans = sorted(
            (start, end, label) for label, start, end in self.scanner.hits(text) if end > start
        )
        if not spans:
            return text
        pieces: list[str] = []
        labels: list[str] = []
        position = 0
        for start, end, label in spans:
            if start < position:  # overlaps a match already replaced
                continue
            pieces.append(text[position:start])
            pieces.append(REDACTED)
            position = end
            if label not in labels:
                labels.append(label)
        pieces.append(text[position:])
        found.extend(Redaction(path, label) for label in labels)
        return "".join(pieces)

    def leak(self, line: bytes) -> str | None:
        """What known secret an encoded entry line still holds (a label), or None."""
        if any(variant in line for variant in self._json_variants):
            return "configured secret"
        if not self._patterns and LITERAL_PREFIXES.search(line) is None:
            return None
        hit = self.scanner.first_hit(line.decode("utf-8"))
        return None if hit is None else f"{hit[0]} ({hit[1]})"


_encoder = msgspec.json.Encoder()
_EMBEDDED_OBJECT = b'{\\"'  # how '{"' looks inside an encoded JSON string
_MAX_EMBEDDED = 4 * 1024 * 1024


def embedded_json(text: str) -> dict[str, Any] | list[Any] | None:
    """The object or array ``text`` holds when it is a JSON text (OpenAI sends tool-call
    arguments so), else None."""
    body = text.strip()
    if len(body) < 2 or len(body) > _MAX_EMBEDDED:
        return None
    if (body[0], body[-1]) not in (("{", "}"), ("[", "]")):
        return None
    try:
        value = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _dump_like(original: str, value: Any) -> str:
    """``value`` as JSON text, spaced as ``original`` was (``{"a": 1}`` or ``{"a":1}``)."""
    spaced = '": ' in original or '", ' in original
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(value, ensure_ascii=False, separators=separators)


def _json_forms(variants: Iterable[str]) -> tuple[bytes, ...]:
    """How each text appears inside a JSON string (escaped as the canonical JSON escapes)."""
    return tuple(msgspec.json.encode(variant)[1:-1] for variant in variants)


def _free_key(taken: Mapping[str, Any], key: str) -> str:
    if key not in taken:
        return key
    number = 2
    while f"{key} {number}" in taken:
        number += 1
    return f"{key} {number}"


def redact_pattern(pattern: str | re.Pattern[str], replacement: str = "[REDACTED]") -> Redactor:
    """A redactor replacing every match of ``pattern`` in every string of the request."""
    compiled = pattern if isinstance(pattern, re.Pattern) else compile_user_pattern(pattern)

    def redact(request: dict[str, Any]) -> dict[str, Any]:
        """The request with every match replaced."""
        result = _replace_strings(request, compiled, replacement)
        assert isinstance(result, dict)
        return result

    return redact


def _replace_strings(value: Any, pattern: re.Pattern[str], replacement: str) -> Any:
    if isinstance(value, str):
        return pattern.sub(replacement, value)
    if isinstance(value, dict):
        return {k: _replace_strings(v, pattern, replacement) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace_strings(v, pattern, replacement) for v in value]
    return value
