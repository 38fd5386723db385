"""Canonical request JSON and the cassette key derived from it.

The key of a request is the sha256 hex digest of its canonical JSON. Canonical means: object
keys sorted at every depth (by code point), no insignificant whitespace, UTF-8 text kept as is,
and numbers by value (an integral float such as ``1.0`` is written ``1``, so ``temperature=1`` and
``temperature=1.0`` share a key; NaN and infinity are refused). The text is exactly what
``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` writes after
that normalization. That is what ``KEY_VERSION`` 1 means; any change to it needs a new key
version.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from evalmark._files.text import escape_surrogates, without_surrogates

KEY_VERSION = 1

# The deepest nesting of arrays and objects a request may have (a JSON schema in
# ``response_format`` needs a few dozen levels at most). Deeper values are refused when recorded
# and when read, which keeps every walk over an entry far from Python's recursion limit.
MAX_DEPTH = 128

# Transport settings: they change how a request travels, never what the model answers.
TRANSPORT_PARAMS = frozenset(
    {
        "api_key",
        "base_url",
        "organization",
        "project",
        "timeout",
        "request_timeout",
        "max_retries",
        "retries",
        "extra_headers",
        "extra_query",
        "http_client",
        "default_headers",
    }
)


class _NoJsonForm(Exception):
    """Internal: the fast walk met something it cannot normalize; the slow walk explains."""


def _fast(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return escape_surrogates(value)
    if kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if value - value != 0.0:  # NaN or infinity
            raise _NoJsonForm
        return int(value) if value.is_integer() else value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NoJsonForm
            out[escape_surrogates(key)] = _fast(item)
        return out
    if kind is list or kind is tuple:
        return [_fast(item) for item in value]
    raise _NoJsonForm


def _slow(value: Any, path: str) -> Any:
    if isinstance(value, str):
        return escape_surrogates(str(value))
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path} is {value!r}; a request must hold finite numbers only")
        return int(value) if value.is_integer() else float(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"{path} has a non-string key {key!r}; JSON keys are strings")
            out[escape_surrogates(str(key))] = _slow(value[key], f"{path}.{key}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_slow(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise TypeError(
        f"{path} is a {type(value).__name__}, which has no JSON form; pass plain dicts, lists, "
        "strings, numbers, booleans or None (for a schema class, pass its JSON schema dict)"
    )


def normalize(value: Any, path: str = "request") -> Any:
    """Return ``value`` as plain JSON data (fresh dicts and lists), integral floats as ints,
    a lone surrogate in a text written as ``\\udcff`` (as the cassette keeps it).

    Raises ``TypeError``/``ValueError`` naming the path of a value with no JSON form (an object,
    NaN, infinity, a non-string key), and ``ValueError`` for one nested too deeply.
    """
    try:
        try:
            return _fast(value)
        except _NoJsonForm:
            return _slow(value, path)
    except RecursionError:
        raise ValueError(
            f"{path} is nested more than {MAX_DEPTH} levels deep; a model request is not"
        ) from None


# A JSON string (skipped whole), or one bracket.
_STRUCTURE = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[{]|[\]}]')


def too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON text ``data`` nests arrays and objects more than ``limit`` deep."""
    if data.count(b"{") + data.count(b"[") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(data):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            if depth > limit:
                return True
        elif token in (b"}", b"]"):
            depth -= 1
    return False


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    return dumps_normalized(normalize(value))


def dumps_normalized(value: Any) -> str:
    """Canonical JSON of a value that :func:`normalize` already produced."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# msgspec with sorted keys writes the same bytes as ``dumps_normalized`` (several times faster)
# except for floats below 1e-4 in magnitude (0.00005 against 5e-05; larger floats agree, and
# floats of 1e16 and more are integral, hence already ints). Those always print as "0.0000…" or
# with "e-" after a digit, so output holding either falls back to json.dumps. A string that
# merely contains such text falls back too, which costs time, never correctness.
_sorted_encoder = msgspec.json.Encoder(order="sorted")


def _maybe_small_float(data: bytes) -> bool:
    if b"0.0000" in data:
        return True
    at = data.find(b"e-")
    while at > 0:
        if 0x30 <= data[at - 1] <= 0x39:
            return True
        at = data.find(b"e-", at + 2)
    return False


def canonical_bytes(normalized_request: Any) -> bytes:
    """The canonical JSON of an already normalized request, as UTF-8 bytes.

    A lone surrogate (no UTF-8 form) is keyed as the text ``\\udcff``, as the cassette keeps
    it. Raises ``ValueError`` for nesting deeper than :data:`MAX_DEPTH`."""
    try:
        try:
            data = _sorted_encoder.encode(normalized_request)
        except UnicodeEncodeError:
            normalized_request = without_surrogates(normalized_request)
            data = _sorted_encoder.encode(normalized_request)
        if _maybe_small_float(data):
            data = dumps_normalized(normalized_request).encode("utf-8")
    except RecursionError:
        data = b"[" * (MAX_DEPTH + 1)
    if too_deep(data, MAX_DEPTH):
        raise ValueError(f"the request is nested more than {MAX_DEPTH} levels deep")
    return data


def key_of(normalized_request: Any) -> str:
    """The sha256 hex key of an already normalized request."""
    return hashlib.sha256(canonical_bytes(normalized_request)).hexdigest()


def request_key(request: Any) -> str:
    """The cassette key of ``request``: sha256 hex of its canonical JSON."""
    return key_of(normalize(request))


def split_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The generation parameters of ``params``: everything except transport settings."""
    return {name: value for name, value in params.items() if name not in TRANSPORT_PARAMS}


def _plain_text_message(message: Mapping[str, Any]) -> bool:
    return all(type(key) is str and type(value) is str for key, value in message.items())


def chat_request(
    model_id: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> dict[str, Any]:
    """The normalized request a chat call makes, as recorded: kind, model, messages and
    generation parameters (see :func:`normalize`). Plain-text message dicts are used as given,
    not copied: pass fresh ones (``message_dicts`` makes them)."""
    return {
        "kind": "chat",
        "model": model_id,
        "messages": [
            message
            if type(message) is dict and _plain_text_message(message)
            else normalize(message, f"request.messages[{position}]")
            for position, message in enumerate(messages)
        ],
        "params": normalize(split_params(params), "request.params"),
    }


def embedding_request(model_id: str, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The normalized request for embedding one text, as recorded."""
    return {
        "kind": "embedding",
        "model": model_id,
        "input": text,
        "params": normalize(split_params(params), "request.params"),
    }
