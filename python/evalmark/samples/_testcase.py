"""The test-case API in one import: the values, the loaders, the writers and the file schemas,
gathered from the modules that define them.

A ``TestCase`` holds what the application was asked (``input``), what it answered
(``actual_output``) and what it did on the way; ``Conversation`` groups the turns of a
multi-turn exchange. Files use kebab-case keys (``actual-output``); JSON and JSON Lines also
accept snake_case. Loading reports problems like the sample loaders do.
"""

from evalmark.errors import TestCaseError
from evalmark.samples._case import (
    Conversation,
    ReasoningStep,
    StepType,
    TestCase,
    TokenUsage,
    ToolCall,
)
from evalmark.samples._load import load_conversations, load_test_cases
from evalmark.samples._schema import conversation_file_schema, test_case_file_schema
from evalmark.samples._write import write_conversations, write_test_cases

__all__ = [
    "Conversation",
    "ReasoningStep",
    "StepType",
    "TestCase",
    "TestCaseError",
    "TokenUsage",
    "ToolCall",
    "conversation_file_schema",
    "load_conversations",
    "load_test_cases",
    "test_case_file_schema",
    "write_conversations",
    "write_test_cases",
]
