"""Each public exception is also the built-in exception it behaves as, under the one root
``EvalmarkError``: code that catches ``ValueError`` (bad input), ``LookupError`` (a missing
recording), ``ImportError`` (a missing extra), ``OSError`` (an output path) or ``RuntimeError``
(a failure while running) keeps catching evalmark's errors."""

from __future__ import annotations

import pytest

import evalmark.errors as errors
from evalmark.errors import (
    CalibrationError,
    CassetteError,
    CassetteFormatError,
    CassetteMiss,
    CliError,
    ConversationError,
    DataFileError,
    EvalmarkError,
    ExtensionNotBuiltError,
    HistoryError,
    ImportFormatError,
    JudgeFailure,
    JudgeParseError,
    JudgeReplyError,
    JudgeSchemaError,
    MetricInputError,
    NetworkBlockedError,
    OptionalDependencyError,
    OutputPathError,
    PluginError,
    PromptFileError,
    PromptVariableError,
    ReportFormatError,
    SampleError,
    SandboxUnavailableError,
    ScoringInputError,
    ScriptExhausted,
    SecretFound,
    StrategyError,
    StructuredOutputError,
    SuiteError,
    TestCaseError,
    TextTooLongError,
    TraceError,
)

# Each exception, the evalmark error it refines and the built-in it behaves as (None: none).
BEHAVES_AS: dict[type[Exception], tuple[type[Exception], type[Exception] | None]] = {
    EvalmarkError: (Exception, None),
    DataFileError: (EvalmarkError, ValueError),
    CalibrationError: (DataFileError, ValueError),
    ImportFormatError: (DataFileError, ValueError),
    PromptFileError: (DataFileError, ValueError),
    ReportFormatError: (DataFileError, ValueError),
    SampleError: (DataFileError, ValueError),
    SuiteError: (DataFileError, ValueError),
    TestCaseError: (DataFileError, ValueError),
    TraceError: (DataFileError, ValueError),
    ConversationError: (EvalmarkError, ValueError),
    MetricInputError: (EvalmarkError, ValueError),
    TextTooLongError: (MetricInputError, ValueError),
    ScoringInputError: (EvalmarkError, ValueError),
    CassetteError: (EvalmarkError, None),
    CassetteFormatError: (CassetteError, ValueError),
    CassetteMiss: (CassetteError, LookupError),
    SecretFound: (CassetteError, ValueError),
    JudgeFailure: (EvalmarkError, None),
    JudgeParseError: (EvalmarkError, ValueError),
    JudgeReplyError: (JudgeParseError, ValueError),
    JudgeSchemaError: (JudgeReplyError, ValueError),
    PromptVariableError: (EvalmarkError, ValueError),
    StrategyError: (EvalmarkError, ValueError),
    StructuredOutputError: (EvalmarkError, RuntimeError),
    ScriptExhausted: (EvalmarkError, RuntimeError),
    NetworkBlockedError: (EvalmarkError, RuntimeError),
    CliError: (EvalmarkError, None),
    ExtensionNotBuiltError: (EvalmarkError, ImportError),
    OptionalDependencyError: (EvalmarkError, ImportError),
    HistoryError: (EvalmarkError, RuntimeError),
    OutputPathError: (EvalmarkError, OSError),
    PluginError: (EvalmarkError, RuntimeError),
    SandboxUnavailableError: (EvalmarkError, RuntimeError),
}
BUILTINS = (ValueError, LookupError, ImportError, OSError, RuntimeError)


def test_the_table_holds_every_public_exception() -> None:
    exported = {getattr(errors, name) for name in errors.__all__}
    assert set(BEHAVES_AS) == {e for e in exported if isinstance(e, type)} - {errors.Problem}


@pytest.mark.parametrize("error", list(BEHAVES_AS), ids=lambda e: e.__name__)
def test_each_exception_refines_its_parent_and_is_exactly_its_builtin(
    error: type[Exception],
) -> None:
    parent, builtin = BEHAVES_AS[error]
    assert issubclass(error, parent) and issubclass(error, Exception)
    if error is not EvalmarkError:
        assert issubclass(error, EvalmarkError)
    assert [b for b in BUILTINS if issubclass(error, b)] == ([builtin] if builtin else [])
