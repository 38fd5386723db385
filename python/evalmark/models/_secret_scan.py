"""Finding credentials: by the name of the field that holds them, by a configured value, and by
format.

A field holds a credential when its name says so (:func:`sensitive_name`); a configured secret
is searched for as itself and without its prefix (:func:`secret_variants`); credential formats
(:data:`BUILTIN_PATTERNS`, plus the user's patterns) are found by :class:`SecretScanner`, which
also checks that nothing credential-like is left in data about to be written.
:mod:`evalmark.models._secrets` does the replacing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from evalmark.errors import CassetteError, SecretFound

__all__ = [
    "BUILTIN_PATTERNS",
    "LITERAL_PREFIXES",
    "MIN_TAIL_LENGTH",
    "MIN_VALUE_LENGTH",
    "REDACTED",
    "SecretScanner",
    "has_sensitive_name",
    "held_whole",
    "redacted_whole",
    "secret_variants",
    "sensitive_name",
    "sensitive_values",
]


REDACTED = "[REDACTED]"

# A pattern with a group named "secret" replaces only that group (a URL keeps its parameter
# names); the others replace the whole match.
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{16,}"),
    ("OpenAI-style API key", r"\bsk-[A-Za-z0-9_-]{16,}"),
    ("HTTP bearer token", r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("JSON web token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    (
        "credential in a URL query",
        r"[?&;](?i:(?:[a-z0-9]+[_.-])*(?:api[_-]?key|key|token|access[_-]?token|auth|secret"
        r"|password|passwd|pwd|signature|sig|credentials?))=(?P<secret>[^&#\s\"'<>\\\[\]]{4,})",
    ),
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
            if isinstance(key, str) and sensitive_name(key) and held_whole(item):
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


def held_whole(value: Any) -> bool:
    """Whether a credential field's value is redacted whole: a scalar, or a list of scalars
    (a header sent several times). Objects are walked, their own field names deciding."""
    return _is_scalar(value) or (
        isinstance(value, list | tuple) and bool(value) and all(map(_is_scalar, value))
    )


def redacted_whole(value: Any) -> Any:
    """``[REDACTED]`` in place of a scalar, or of each item of a list of scalars."""
    return [REDACTED] * len(value) if isinstance(value, list | tuple) else REDACTED


def compile_user_pattern(source: str) -> re.Pattern[str]:
    """A user's secret pattern compiled, or a ``CassetteError`` saying why it is not one."""
    try:
        return re.compile(source)
    except re.error as exc:
        raise CassetteError(
            f"secret pattern {source!r} is not a regular expression ({exc}); fix it, or "
            "escape it (re.escape) to match the text literally"
        ) from None


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
            compiled = item if isinstance(item, re.Pattern) else compile_user_pattern(item)
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
                if "secret" in pattern.groupindex:
                    start, end = match.span("secret")
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
            if isinstance(key, str) and sensitive_name(key) and held_whole(item):
                if item not in (REDACTED, redacted_whole(item)):
                    yield where
            else:
                yield from _unredacted_fields(item, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _unredacted_fields(item, f"{path}[{index}]")


# The literal start of every built-in format: text holding none of them matches none.
LITERAL_PREFIXES = re.compile(
    rb"sk-|Bearer|A[KS]IA|AIza|eyJ|gh[opusr]_|github_pat_|xox"
    rb"|(?i:key|token|auth|secret|passwd|password|pwd|signature|sig|credentials?)="
)


def has_sensitive_name(value: Any) -> bool:
    """Whether any field name anywhere in ``value`` says it holds a credential."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            known = _names.get(key)
            if known is None:
                known = sensitive_name(key)
            if known:
                return True
            inner = type(item)
            if (inner is dict or inner is list) and has_sensitive_name(item):
                return True
        return False
    if kind is list:
        for item in value:
            inner = type(item)
            if (inner is dict or inner is list) and has_sensitive_name(item):
                return True
    return False
