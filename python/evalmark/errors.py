"""Every public evalmark exception, under one root: ``except evalmark.errors.EvalmarkError``.

Each error is also the built-in exception it behaves as (``ValueError`` for bad input,
``LookupError`` for a missing recording, ``ImportError`` for a missing extra), so code that
catches the built-in keeps working. This module imports nothing else of evalmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CalibrationError",
    "CassetteError",
    "CassetteFormatError",
    "CassetteMiss",
    "CliError",
    "ConversationError",
    "DataFileError",
    "EvalmarkError",
    "GradeParseError",
    "HistoryError",
    "JsonJudgmentParseError",
    "JudgeFailure",
    "JudgeParseError",
    "JudgeReplyError",
    "JudgeSchemaError",
    "MetricInputError",
    "NetworkBlockedError",
    "OptionalDependencyError",
    "OutputPathError",
    "PlotUnavailableError",
    "PluginError",
    "Problem",
    "PromptFileError",
    "PromptVariableError",
    "ReportFormatError",
    "SampleError",
    "SandboxUnavailableError",
    "ScoringInputError",
    "ScriptExhausted",
    "SecretFound",
    "StrategyError",
    "StructuredOutputError",
    "SuiteError",
    "TestCaseError",
    "TextTooLongError",
    "VerdictParseError",
]


class EvalmarkError(Exception):
    """The root of every error evalmark raises on purpose."""


class MetricInputError(EvalmarkError, ValueError):
    """A metric kernel was given input it cannot score; the message names the row and field."""


class TextTooLongError(MetricInputError):
    """Texts longer than the call's ``max_chars``. The message names the first few rows (or the
    side, for a single pair) and their lengths; ``rows`` lists every offending row of a batch
    (ascending, counted from 0), empty for a single pair."""

    rows: tuple[int, ...] = ()


# --------------------------------------------------------------------------- data files


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a data file: where it is, which record, and what to do about it."""

    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    record: str | None = None

    def __str__(self) -> str:
        if self.path is None and self.line is None:
            return f"{self.record}: {self.message}" if self.record else self.message
        where = self.path or "<data>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        label = f" {self.record}:" if self.record else ""
        return f"{where}:{label} {self.message}"


class DataFileError(EvalmarkError, ValueError):
    """A data file could not be loaded; ``problems`` lists every problem found (at most 20)."""

    def __init__(self, problems: Sequence[Problem] | str, *, more: int = 0) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        if not problems:
            raise ValueError("a DataFileError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.more = more
        first = self.problems[0]
        self.path = first.path
        self.line = first.line
        self.column = first.column
        self.record = first.record
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1 and not self.more:
            return str(self.problems[0])
        count = len(self.problems) + self.more
        lines = [f"{count} problems found:"]
        lines += [f"  {p}" for p in self.problems]
        if self.more:
            lines.append(f"  ... and {self.more} more")
        return "\n".join(lines)


class SampleError(DataFileError):
    """A sample or a samples file is invalid; the message says where and what to do.

    Attributes ``path``, ``line``, ``column`` and ``record`` locate the first problem;
    ``problems`` holds every problem found in the file (at most 20 are kept).
    """


class TestCaseError(DataFileError):
    """A test case or a test-case file is invalid; the message says where and what to do."""

    __test__ = False  # not a pytest test class


class SuiteError(DataFileError):
    """A suite file is invalid; the message names the file, line, key and the fix."""


class ReportFormatError(DataFileError):
    """A JSON report (or suite report) that cannot be read: not JSON, nested too deep, not in
    evalmark's report format, or a field of the wrong type; the message names the file, the
    place (line, or the field's path such as ``samples[3].results``) and what to do."""


# --------------------------------------------------------------------------- cassettes and models


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


# --------------------------------------------------------------------------- strategies and judges


class StrategyError(EvalmarkError, ValueError):
    """A strategy cannot evaluate a sample as given (missing expectation, unreadable output)."""


class JudgeParseError(EvalmarkError, ValueError):
    """A judge's reply could not be read; ``raw`` holds the reply."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(f"{message}; the reply was {_excerpt(raw)}")
        self.raw = raw


class VerdictParseError(JudgeParseError):
    """The reply does not start with yes or no."""


class GradeParseError(JudgeParseError):
    """The reply holds no grade, or one outside the scale."""


class JsonJudgmentParseError(JudgeParseError):
    """The reply holds no usable JSON judgment."""


class JudgeReplyError(JudgeParseError):
    """A judge's structured reply is unusable; the message names the prompt and quotes the
    reply. ``prompt`` is the prompt's name; ``problem`` says what is wrong: ``"empty"``,
    ``"no-json"`` (no JSON object in the reply), ``"shape"`` (a field missing or of the wrong
    type), ``"range"`` (a continuous score outside [0, 1]), ``"choice"`` (a score that is
    not one of the choices) or ``"schema"`` (see :class:`JudgeSchemaError`)."""

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


class PromptFileError(DataFileError):
    """A prompt file (Markdown with a YAML front matter) is malformed; the message names the
    file, the line and the field."""


class CalibrationError(DataFileError):
    """A judge calibration set (labelled items) is invalid; the message names the file, the
    line, the item and the field."""


class JudgeFailure(EvalmarkError):
    """Every call of the judge failed (model error or unreadable reply); ``error`` says why."""

    def __init__(self, message: str, error: object) -> None:
        super().__init__(message)
        self.error = error


# --------------------------------------------------------------------------- scoring and extras


class ScoringInputError(EvalmarkError, ValueError):
    """The input cannot be scored as given; the message names the file, the place and the field.

    ``where`` is a human description of the place ("line 12", "row group 3, row 40"), empty
    for whole-file problems; ``field`` is the column involved, empty when none is.
    """

    def __init__(self, path: str, where: str, field: str, problem: str, hint: str = "") -> None:
        self.path = path
        self.where = where
        self.field = field
        self.problem = problem
        parts = [path]
        if where:
            parts.append(where)
        if field:
            parts.append(f"field {field!r}")
        message = ", ".join(parts) + f": {problem}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


class OptionalDependencyError(EvalmarkError, ImportError):
    """An optional extra is needed for what was asked; the message says which to install."""

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the {module!r} package: install it with "
            f"`pip install 'evalmark[{extra}]'`"
        )
        self.extra = extra


class OutputPathError(EvalmarkError, OSError):
    """An output file cannot be written at the path given; the message names that path (never
    a temporary file) and what to do. ``filename`` is the path given."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.filename = path

    def __str__(self) -> str:
        return str(self.args[0])


class PlotUnavailableError(EvalmarkError, ImportError):
    """matplotlib is not installed, so no plot can be drawn."""


class NetworkBlockedError(EvalmarkError, RuntimeError):
    """An outbound network call in an offline run, refused before any packet was sent.

    Deliberately not an ``OSError`` (nor ``ConnectionError``): HTTP stacks turn an ``OSError``
    from ``connect`` into their own connection error and retry it (httpcore's connect retries,
    urllib3's ``Retry``, the OpenAI SDK's retry loop over ``httpx.RequestError``, the address
    loops of ``socket.create_connection`` and asyncio), so the run would stall in back-off and
    end in a wrapped error. A ``RuntimeError`` passes through them unchanged on the first try.

    Attributes: ``host``, ``port`` (None when there is none, e.g. a name lookup or a unix
    socket), ``operation`` (``"connect"``, ``"resolve"``, ``"send"``), ``location`` (the
    ``file:line`` of the code that asked, or ``"<unknown>"``), ``reason`` (why the run is
    offline) and ``hint`` (how to record the calls instead, or allow the host).
    """

    def __init__(
        self,
        *,
        host: str,
        port: int | None,
        operation: str,
        location: str,
        reason: str,
        hint: str,
    ) -> None:
        self.host = host
        self.port = port
        self.operation = operation
        self.location = location
        self.reason = reason
        self.hint = hint
        super().__init__(f"{self.summary}. {hint}")

    @property
    def target(self) -> str:
        """``host:port`` (``[v6]:port`` for IPv6), or the host alone when there is no port."""
        if self.port is None:
            return self.host
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def what(self) -> str:
        """What was blocked and from where: ``connection to host:443 from app.py:12 (answer)``."""
        phrase = _BLOCKED_PHRASES.get(self.operation, self.operation)
        return f"{phrase} {self.target} from {self.location}"

    @property
    def summary(self) -> str:
        """One line without the hint: what was blocked, from where, and why."""
        return f"network blocked: {self.what} (evalmark runs offline: {self.reason})"

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments: rebuild through a helper so the error pickles (xdist, Ray).
        return (
            _network_blocked,
            (self.host, self.port, self.operation, self.location, self.reason, self.hint),
        )


_BLOCKED_PHRASES = {
    "connect": "connection to",
    "resolve": "name lookup of",
    "send": "datagram to",
}


def _network_blocked(
    host: str, port: int | None, operation: str, location: str, reason: str, hint: str
) -> NetworkBlockedError:
    return NetworkBlockedError(
        host=host, port=port, operation=operation, location=location, reason=reason, hint=hint
    )


class PluginError(EvalmarkError, RuntimeError):
    """An installed plug-in (an entry point of an ``evalmark.*`` group) failed to load."""


class HistoryError(EvalmarkError, RuntimeError):
    """The run history database cannot be opened, read or written; the message says why and
    what to do. Never changes a run's verdict: the command line reports it as a warning."""


class SandboxUnavailableError(EvalmarkError, RuntimeError):
    """A code sandbox cannot run on this machine (bubblewrap missing, namespaces refused, an
    interpreter the sandbox cannot reach); the message says which and what to do."""


class CliError(EvalmarkError):
    """A usage or input error of the command line: one line on stderr, exit code 2."""


# --------------------------------------------------------------------------- conv (issue 17)


class ConversationError(EvalmarkError, ValueError):
    """A simulated conversation cannot go on: an empty user reply, a user or application that
    returned something unusable. The message names the conversation and the turn."""
