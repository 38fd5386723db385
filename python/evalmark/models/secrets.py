"""Refusing to write credentials into a cassette, and redactors that remove them first."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias

from evalmark.errors import SecretFound

Redactor: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]

BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("OpenAI-style API key", r"\bsk-[A-Za-z0-9_-]{16,}"),
    ("HTTP bearer token", r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
)


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

    def first_hit(self, text: str) -> tuple[str, str] | None:
        """(pattern label, masked match) of the first credential-like text, or None."""
        for label, pattern, boundary in self._patterns:
            match = pattern.search(text)
            while match is not None and boundary and _word_before(text, match.start()):
                match = pattern.search(text, match.start() + 1)
            if match is not None:
                return label, _mask(match.group(0))
        return None

    def check(self, value: Any, field: str, *, where: str) -> None:
        """Raise ``SecretFound`` naming the field of ``value`` that holds credential-like text."""
        for path, text in _strings(value, field):
            hit = self.first_hit(text)
            if hit is not None:
                label, masked = hit
                raise SecretFound(
                    f"refusing to write {where}: {path} contains what looks like a {label} "
                    f"({masked}). Remove it from the request, or pass a redactor to "
                    "record_replay(..., redact=[redact_pattern(...)]) so it is replaced before "
                    "hashing and writing."
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
