"""evalmark: offline-first, deterministic evaluation for LLM applications.

The metric kernels load with the package; everything else (samples, models, noise, engine,
suites, reports) is imported on first use, so ``import evalmark`` stays quick for the command
line and the pytest plugin.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from evalmark._core import __version__
from evalmark.metrics import (
    MetricInputError,
    TextColumn,
    canonical_json,
    cosine,
    cosine_batch,
    cosine_matrix,
    json_match,
    json_match_batch,
    levenshtein_distance,
    levenshtein_distance_batch,
    levenshtein_similarity,
    levenshtein_similarity_batch,
    rouge_l,
    rouge_l_batch,
    token_f1,
    token_f1_batch,
)

if TYPE_CHECKING:
    from evalmark import strategies
    from evalmark.models import CassetteMiss, record_replay
    from evalmark.noise import gate_risk, simulate_gates, tune
    from evalmark.report import Report, SuiteReport, assert_that, register_formatter
    from evalmark.results import EvaluationError, EvaluationResult
    from evalmark.samples import (
        Parameters,
        Sample,
        SampleError,
        SampleLoader,
        Samples,
        load_samples,
        register_sample_loader,
        unregister_sample_loader,
        write_samples,
    )
    from evalmark.scorer import Evaluation, Scorer
    from evalmark.suite import load_suite, run_suite
    from evalmark.testcase import (
        Conversation,
        ReasoningStep,
        TestCase,
        TestCaseError,
        TokenUsage,
        ToolCall,
        load_conversations,
        load_test_cases,
        write_conversations,
        write_test_cases,
    )

# name -> the module that defines it, imported when the name is first asked for
_LAZY: dict[str, str] = {
    **dict.fromkeys(["CassetteMiss", "record_replay"], "evalmark.models"),
    **dict.fromkeys(["gate_risk", "simulate_gates", "tune"], "evalmark.noise"),
    **dict.fromkeys(
        ["Report", "SuiteReport", "assert_that", "register_formatter"], "evalmark.report"
    ),
    **dict.fromkeys(["EvaluationError", "EvaluationResult"], "evalmark.results"),
    **dict.fromkeys(
        [
            "Parameters",
            "Sample",
            "SampleError",
            "SampleLoader",
            "Samples",
            "load_samples",
            "register_sample_loader",
            "unregister_sample_loader",
            "write_samples",
        ],
        "evalmark.samples",
    ),
    **dict.fromkeys(["Evaluation", "Scorer"], "evalmark.scorer"),
    **dict.fromkeys(["load_suite", "run_suite"], "evalmark.suite"),
    **dict.fromkeys(
        [
            "Conversation",
            "ReasoningStep",
            "TestCase",
            "TestCaseError",
            "TokenUsage",
            "ToolCall",
            "load_conversations",
            "load_test_cases",
            "write_conversations",
            "write_test_cases",
        ],
        "evalmark.testcase",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"evalmark.{name}") is not None:
        value = importlib.import_module(f"evalmark.{name}")  # any submodule, on first use
    else:
        raise AttributeError(f"module 'evalmark' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    import pkgutil

    submodules = {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}
    return sorted(set(globals()) | set(_LAZY) | submodules)


__all__ = [
    # recorded models
    "CassetteMiss",
    # test cases
    "Conversation",
    # evaluation engine
    "Evaluation",
    "EvaluationError",
    "EvaluationResult",
    # metrics
    "MetricInputError",
    # samples
    "Parameters",
    "ReasoningStep",
    "Report",
    "Sample",
    "SampleError",
    "SampleLoader",
    "Samples",
    "Scorer",
    "SuiteReport",
    "TestCase",
    "TestCaseError",
    "TextColumn",
    "TokenUsage",
    "ToolCall",
    # package
    "__version__",
    "assert_that",
    "canonical_json",
    "cosine",
    "cosine_batch",
    "cosine_matrix",
    # judge noise and gates
    "gate_risk",
    "json_match",
    "json_match_batch",
    "levenshtein_distance",
    "levenshtein_distance_batch",
    "levenshtein_similarity",
    "levenshtein_similarity_batch",
    "load_conversations",
    "load_samples",
    # suites
    "load_suite",
    "load_test_cases",
    "record_replay",
    "register_formatter",
    "register_sample_loader",
    "rouge_l",
    "rouge_l_batch",
    "run_suite",
    "simulate_gates",
    "strategies",
    "token_f1",
    "token_f1_batch",
    "tune",
    "unregister_sample_loader",
    "write_conversations",
    "write_samples",
    "write_test_cases",
]
