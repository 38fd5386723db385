"""Errors of models, cassettes, strategies and judges."""

from __future__ import annotations

from evalmark.errors._root import EvalmarkError

__all__ = [
    "CassetteError",
    "CassetteFormatError",
    "CassetteMiss",
    "JudgeFailure",
    "JudgeParseError",
    "JudgeReplyError",
    "JudgeSchemaError",
    "PromptVariableError",
    "ScriptExhausted",
    "SecretFound",
    "StrategyError",
    "StructuredOutputError",
]


class CassetteError(EvalmarkError):
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


class ScriptExhausted(EvalmarkError, RuntimeError):
    """A ``ScriptedChat`` was asked more often than it has replies, or nothing matched."""


class StrategyError(EvalmarkError, ValueError):
    """A strategy cannot evaluate a sample as given (missing expectation, unreadable output)."""


class JudgeParseError(EvalmarkError, ValueError):
    """A judge's reply could not be read; ``raw`` holds the reply."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(f"{message}; the reply was {_excerpt(raw)}")
        self.raw = raw


class JudgeReplyError(JudgeParseError):
    """A judge's structured reply is unusable; the message names the prompt and quotes the
    reply. ``prompt`` is the prompt's name; ``problem`` says what is wrong: ``"empty"``,
    ``"no-json"`` (no JSON object in the reply), ``"shape"`` (a field missing or of the wrong
    type), ``"range"`` (a continuous score outside [0, 1]), ``"choice"`` (a score that is
    not one of the choices), ``"type"`` (the model returned no text: ``None``, a number, a
    dict, bytes) or ``"schema"`` (see :class:`JudgeSchemaError`)."""

    def __init__(self, prompt: str, problem: str, message: str, raw: str) -> None:
        super().__init__(f"judge prompt {prompt!r}: {message}", raw)
        self.prompt = prompt
        self.problem = problem


class JudgeSchemaError(JudgeReplyError):
    """A judge's reply does not conform to the output schema; ``path`` is where the first
    violation is (``$`` for the whole object, ``$.labels[0]`` inside it)."""

    def __init__(self, prompt: str, path: str, message: str, raw: str) -> None:
        super().__init__(
            prompt, "schema", f"the reply violates the output schema at {path}: {message}", raw
        )
        self.path = path


def _excerpt(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class StructuredOutputError(EvalmarkError, RuntimeError):
    """The model server refused structured output (``response_format`` with a JSON Schema)
    that the judge's ``mode="native"`` needs; use ``mode="auto"`` or ``"prompted"``."""


class PromptVariableError(EvalmarkError, ValueError):
    """A judge prompt was rendered with a variable missing, unknown to it, or of a type it
    cannot show. ``prompt`` and ``variable`` name them; ``problem`` is ``"missing"``,
    ``"unknown"`` or ``"type"``."""

    def __init__(self, prompt: str, variable: str, problem: str, message: str) -> None:
        super().__init__(message)
        self.prompt = prompt
        self.variable = variable
        self.problem = problem


class JudgeFailure(EvalmarkError):
    """Every call of the judge failed (model error or unreadable reply); ``error`` says why."""

    def __init__(self, message: str, error: object) -> None:
        super().__init__(message)
        self.error = error
