"""Errors raised by cassettes."""

from __future__ import annotations


class CassetteError(Exception):
    """Base class of every cassette error."""


class CassetteFormatError(CassetteError, ValueError):
    """A cassette file that cannot be read: corrupt or truncated line, unknown version."""


class SecretFound(CassetteError, ValueError):
    """A write refused because the text looked like a credential."""


class CassetteMiss(CassetteError, LookupError):
    """No recording for a request in replay mode.

    Deliberately not a connection error, so no SDK retry loop retries it. Attributes: ``path``,
    ``mode``, ``key``, ``sample_index``, ``recorded`` (samples recorded for that key).
    """

    def __init__(
        self, message: str, *, path: str, mode: str, key: str, sample_index: int, recorded: int
    ) -> None:
        super().__init__(message)
        self.path = path
        self.mode = mode
        self.key = key
        self.sample_index = sample_index
        self.recorded = recorded


class ScriptExhausted(RuntimeError):
    """A ``ScriptedChat`` was asked more often than it has replies, or nothing matched."""
