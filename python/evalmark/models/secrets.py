"""Keeping credentials out of cassettes: found by where they sit, by value and by format.

Before an entry is hashed and written, :class:`SecretRedactor` replaces with ``[REDACTED]``:

- the value of every field whose name says it holds a credential (:func:`sensitive_name`:
  ``api_key``, ``api-key``, ``Authorization``, ``x-auth-token``, ``client_secret``,
  ``password``...), at any depth of the request or the reply;
- every value the model was configured with (the client's API key, sensitive headers and
  parameters), wherever it reappears (a prompt, a reply), also without its prefix
  (``proj-…`` of ``sk-proj-…``);
- text matching a credential format (:data:`BUILTIN_PATTERNS`) or a pattern of the user.

Each removal is listed in the entry's ``redacted`` field (where, and why). A redacted value is
never written: the encoded line is checked once more before writing, and ``SecretFound`` is
raised if anything known slipped through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeAlias

import msgspec

from evalmark.errors import SecretFound
from evalmark.models.cassette_file import Redaction

Redactor: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]

REDACTED = "[REDACTED]"

BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("OpenAI-style API key", r"\bsk-[A-Za-z0-9_-]{16,}"),
    ("HTTP bearer token", r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
)

# A field holds a credential when the last word of its name is one of these, or when any word
# is one of _ANY_WORD. Words: split at "_", "-", ".", spaces and lowercase-to-uppercase steps,
# so api_key, api-key, apiKey, X-API-Key, access_token and clientSecret all count, while
# max_tokens, prompt_tokens, key_points and token_budget do not.
_LAST_WORD = frozenset(
    {
        "key",
        "apikey",
        "token",
        "accesstoken",
        "authtoken",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "cookie",
        "signature",
    }
)
_ANY_WORD = frozenset({"apikey", "secret", "password", "passwd", "authorization", "credentials"})
_WORD_BREAK = re.compile(r"[\s_.\-:/]+|(?<=[a-z0-9])(?=[A-Z])")

# A configured value shorter than this is too common a string to search for in free text
# (it is still redacted where a sensitive field holds it).
MIN_VALUE_LENGTH = 6
# A configured value is also searched for without its prefix: the part after a separator,
# when that part is at least this long (``proj-abc…`` of ``sk-proj-abc…``).
MIN_TAIL_LENGTH = 12
_SEPARATORS = re.compile(r"[\s\-_.:]")

_names: dict[str, bool] = {}


def sensitive_name(name: str) -> bool:
    """True when a field or header called ``name`` holds a credential (see the module doc)."""
    known = _names.get(name)
    if known is None:
        words = [word.lower() for word in _WORD_BREAK.split(name) if word]
        known = bool(words) and (words[-1] in _LAST_WORD or not _ANY_WORD.isdisjoint(words))
        if len(_names) < 4096:
            _names[name] = known
    return known


def secret_variants(value: str) -> tuple[str, ...]:
    """The forms of a configured secret searched for in text: itself and, after each
    separator, the rest when it is long enough. Longest first; empty for a short value."""
    value = value.strip()
    if len(value) < MIN_VALUE_LENGTH or value == REDACTED:
        return ()
    variants = {value}
    for match in _SEPARATORS.finditer(value):
        tail = value[match.end() :]
        if len(tail) >= MIN_TAIL_LENGTH:
            variants.add(tail)
    return tuple(sorted(variants, key=lambda v: (-len(v), v)))


def sensitive_values(value: Any) -> Iterator[str]:
    """The scalar values held under sensitive names anywhere in ``value`` (as text)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and sensitive_name(key) and _held(item):
                yield from (
                    str(part) for part in (item if isinstance(item, list | tuple) else [item])
                )
            else:
                yield from sensitive_values(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from sensitive_values(item)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _held(value: Any) -> bool:
    """Whether a credential field's value is redacted whole: a scalar, or a list of scalars
    (a header sent several times). Objects are walked, their own field names deciding."""
    return _is_scalar(value) or (
        isinstance(value, list | tuple) and bool(value) and all(map(_is_scalar, value))
    )


def _redacted_whole(value: Any) -> Any:
    return [REDACTED] * len(value) if isinstance(value, list | tuple) else REDACTED


class SecretScanner:
    """Finds credential-like text: the built-in patterns plus ``extra`` user patterns."""

    def __init__(self, extra: Iterable[str | re.Pattern[str]] = ()) -> None:
        # A leading \b stops the regex engine from skipping ahead to the literal prefix (about
        # 20 times slower), so the built-in patterns search without it and check the word
        # boundary on each candidate instead.
        patterns: list[tuple[str, re.Pattern[str], bool]] = [
            (label, re.compile(source.removeprefix(r"\b")), source.startswith(r"\b"))
            for label, source in BUILTIN_PATTERNS
        ]
        for item in extra:
            compiled = item if isinstance(item, re.Pattern) else re.compile(item)
            patterns.append((f"user pattern {compiled.pattern!r}", compiled, False))
        self._patterns = tuple(patterns)

    def hits(self, text: str) -> Iterator[tuple[str, int, int]]:
        """(pattern label, start, end) of every credential-like match, pattern by pattern."""
        for label, pattern, boundary in self._patterns:
            position = 0
            while (match := pattern.search(text, position)) is not None:
                start, end = match.span()
                position = end if end > start else start + 1
                if boundary and _word_before(text, start):
                    position = start + 1
                    continue
                if end > start:
                    yield label, start, end

    def first_hit(self, text: str) -> tuple[str, str] | None:
        """(pattern label, masked match) of the first credential-like text, or None."""
        for label, start, end in self.hits(text):
            return label, _mask(text[start:end])
        return None

    def check(self, value: Any, field: str, *, where: str) -> None:
        """Raise ``SecretFound`` naming the field of ``value`` that holds credential-like text,
        or a sensitive field holding a value that is not redacted."""
        for path, text in _strings(value, field):
            hit = self.first_hit(text)
            if hit is not None:
                label, masked = hit
                raise SecretFound(
                    f"refusing to write {where}: {path} contains what looks like a {label} "
                    f"({masked}). Remove it, or pass secret_patterns/secrets to record_replay "
                    "so it is redacted before hashing and writing."
                )
        for path in _unredacted_fields(value, field):
            raise SecretFound(
                f"refusing to write {where}: {path} is a credential field holding a value "
                f"that is not {REDACTED}"
            )


def _word_before(text: str, position: int) -> bool:
    if position == 0:
        return False
    previous = text[position - 1]
    return previous.isalnum() or previous == "_"


def _mask(secret: str) -> str:
    return secret[:6] + "…" if len(secret) > 6 else "…"


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key} (key)", str(key)
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _unredacted_fields(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}"
            if isinstance(key, str) and sensitive_name(key) and _held(item):
                if item not in (REDACTED, _redacted_whole(item)):
                    yield where
            else:
                yield from _unredacted_fields(item, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _unredacted_fields(item, f"{path}[{index}]")


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
        if _PREFIXES.search(data) is not None:
            return False
        if any(variant in data for variant in self._json_variants):
            return False
        return not _has_sensitive_name(value)

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
            return self._text(value, path, found)
        if isinstance(value, dict):
            out: dict[str, Any] | None = None
            for position, (key, item) in enumerate(value.items()):
                new_key = self._text(key, f"{path} (a key)", found) if self._suspect(key) else key
                where = f"{path}.{new_key}"
                if sensitive_name(key) and _held(item):
                    whole = _redacted_whole(item)
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
        if isinstance(value, list):
            items: list[Any] | None = None
            for position, item in enumerate(value):
                new = self._walk(item, f"{path}[{position}]", found)
                if items is None and new is not item:
                    items = value[:position]
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
        if not self._patterns and _PREFIXES.search(line) is None:
            return None
        hit = self.scanner.first_hit(line.decode("utf-8"))
        return None if hit is None else f"{hit[0]} ({hit[1]})"


# The literal start of every built-in format: text holding none of them matches none.
_PREFIXES = re.compile(rb"sk-|Bearer|A[KS]IA|gh[opusr]_|github_pat_|xox")


_encoder = msgspec.json.Encoder()


def _json_forms(variants: Iterable[str]) -> tuple[bytes, ...]:
    """How each text appears inside a JSON string (escaped as the canonical JSON escapes)."""
    return tuple(msgspec.json.encode(variant)[1:-1] for variant in variants)


def _has_sensitive_name(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            known = _names.get(key)
            if known is None:
                known = sensitive_name(key)
            if known:
                return True
            inner = type(item)
            if (inner is dict or inner is list) and _has_sensitive_name(item):
                return True
        return False
    if kind is list:
        for item in value:
            inner = type(item)
            if (inner is dict or inner is list) and _has_sensitive_name(item):
                return True
    return False


def _free_key(taken: Mapping[str, Any], key: str) -> str:
    if key not in taken:
        return key
    number = 2
    while f"{key} {number}" in taken:
        number += 1
    return f"{key} {number}"


def redact_pattern(pattern: str | re.Pattern[str], replacement: str = "[REDACTED]") -> Redactor:
    """A redactor replacing every match of ``pattern`` in every string of the request."""
    compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)

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
