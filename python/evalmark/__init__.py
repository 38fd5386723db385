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
