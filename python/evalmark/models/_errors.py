"""Errors raised by cassettes and fakes (defined in :mod:`evalmark.errors`)."""

from evalmark.errors import (
    CassetteError,
    CassetteFormatError,
    CassetteMiss,
    ScriptExhausted,
    SecretFound,
)

__all__ = ["CassetteError", "CassetteFormatError", "CassetteMiss", "ScriptExhausted", "SecretFound"]
