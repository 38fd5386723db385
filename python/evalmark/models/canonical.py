"""Canonical request JSON and the cassette key derived from it.

The key of a request is the sha256 hex digest of its canonical JSON. Canonical means: object
keys sorted at every depth, no insignificant whitespace, UTF-8 text kept as is, and numbers by
value (an integral float such as ``1.0`` is written ``1``, so ``temperature=1`` and
``temperature=1.0`` share a key). It is computed here in Python with ``json.dumps`` after that
number normalization, which is what ``KEY_VERSION`` 1 means; a change to any of this needs a
new key version.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

KEY_VERSION = 1

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


def _normalized(value: Any, path: str) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{path} is {value!r}; a request must hold finite numbers only")
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in sorted(value, key=_key_text(path)):
            out[key] = _normalized(value[key], f"{path}.{key}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_normalized(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise TypeError(
        f"{path} is a {type(value).__name__}, which has no JSON form; pass plain dicts, lists, "
        "strings, numbers, booleans or None (for a schema class, pass its JSON schema dict)"
    )


def _key_text(path: str) -> Any:
    def check(key: object) -> str:
        if not isinstance(key, str):
            raise TypeError(f"{path} has a non-string key {key!r}; JSON object keys are strings")
        return key

    return check


def normalize(value: Any, path: str = "request") -> Any:
    """Return ``value`` as plain JSON data: dict keys sorted, integral floats turned into ints.

    Raises ``TypeError``/``ValueError`` naming the path of a value with no JSON form (an object,
    NaN, infinity, a non-string key).
    """
    return _normalized(value, path)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    return dumps_normalized(normalize(value))


def dumps_normalized(value: Any) -> str:
    """Canonical JSON of a value that :func:`normalize` already produced."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def key_of(normalized_request: Any) -> str:
    """The sha256 hex key of an already normalized request."""
    return hashlib.sha256(dumps_normalized(normalized_request).encode("utf-8")).hexdigest()


def request_key(request: Any) -> str:
    """The cassette key of ``request``: sha256 hex of its canonical JSON."""
    return key_of(normalize(request))


def split_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The generation parameters of ``params``: everything except transport settings."""
    return {name: value for name, value in params.items() if name not in TRANSPORT_PARAMS}


def chat_request(
    model_id: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> dict[str, Any]:
    """The request a chat call makes, as recorded: kind, model, messages and parameters."""
    return {
        "kind": "chat",
        "model": model_id,
        "messages": list(messages),
        "params": split_params(params),
    }


def embedding_request(model_id: str, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The request for embedding one text, as recorded."""
    return {"kind": "embedding", "model": model_id, "input": text, "params": split_params(params)}
