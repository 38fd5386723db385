"""evalmark: offline-first, deterministic evaluation for LLM applications."""

from evalmark import strategies
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

__all__ = [
    # metrics
    "MetricInputError",
    "TextColumn",
    "canonical_json",
    "cosine",
    "cosine_batch",
    "cosine_matrix",
    "json_match",
    "json_match_batch",
    "levenshtein_distance",
    "levenshtein_distance_batch",
    "levenshtein_similarity",
    "levenshtein_similarity_batch",
    "rouge_l",
    "rouge_l_batch",
    "token_f1",
    "token_f1_batch",
    # recorded models
    "CassetteMiss",
    "record_replay",
    # judge noise and gates
    "gate_risk",
    "simulate_gates",
    "tune",
    # samples
    "Parameters",
    "Sample",
    "SampleError",
    "SampleLoader",
    "Samples",
    "load_samples",
    "register_sample_loader",
    "unregister_sample_loader",
    "write_samples",
    # test cases
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
    # evaluation engine
    "Evaluation",
    "EvaluationError",
    "EvaluationResult",
    "Report",
    "Scorer",
    "SuiteReport",
    "assert_that",
    "register_formatter",
    "strategies",
    # suites
    "load_suite",
    "run_suite",
    # package
    "__version__",
]
