"""Every public evalmark exception, under one root: ``except evalmark.errors.EvalmarkError``.

Each error is also the built-in exception it behaves as (``ValueError`` for bad input,
``LookupError`` for a missing recording, ``ImportError`` for a missing extra), so code that
catches the built-in keeps working. This package imports nothing else of evalmark.

``evalmark.errors`` is the one import path of every exception (the Rust core imports
``MetricInputError`` and ``TextTooLongError`` from it); the submodules only group them:
``root`` (``EvalmarkError``), ``inputs`` (metric and scoring input), ``data`` (data files and
their ``Problem``), ``judges`` (models, cassettes, strategies, judges), ``network`` (offline
runs) and ``system`` (extras, output paths, plug-ins, history, sandbox, command line). Each
exception reports ``evalmark.errors`` as its module.
"""

from __future__ import annotations

from evalmark.errors._data import (
    CalibrationError,
    ConversationError,
    DataFileError,
    ImportFormatError,
    Problem,
    PromptFileError,
    ReportFormatError,
    SampleError,
    SuiteError,
    TestCaseError,
    TraceError,
)
from evalmark.errors._inputs import (
    MetricInputError,
    ScoringInputError,
    TextTooLongError,
)
from evalmark.errors._judges import (
    CassetteError,
    CassetteFormatError,
    CassetteMiss,
    JudgeFailure,
    JudgeParseError,
    JudgeReplyError,
    JudgeSchemaError,
    PromptVariableError,
    ScriptExhausted,
    SecretFound,
    StrategyError,
    StructuredOutputError,
)
from evalmark.errors._network import NetworkBlockedError
from evalmark.errors._root import EvalmarkError
from evalmark.errors._system import (
    CliError,
    ExtensionNotBuiltError,
    HistoryError,
    OptionalDependencyError,
    OutputPathError,
    PluginError,
    SandboxUnavailableError,
)

__all__ = [
    "CalibrationError",
    "CassetteError",
    "CassetteFormatError",
    "CassetteMiss",
    "CliError",
    "ConversationError",
    "DataFileError",
    "EvalmarkError",
    "ExtensionNotBuiltError",
    "HistoryError",
    "ImportFormatError",
    "JudgeFailure",
    "JudgeParseError",
    "JudgeReplyError",
    "JudgeSchemaError",
    "MetricInputError",
    "NetworkBlockedError",
    "OptionalDependencyError",
    "OutputPathError",
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
    "TraceError",
]

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
