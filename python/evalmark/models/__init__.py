"""Chat and embedding models: protocols, adapters, cassettes (record/replay), fakes, noisy judge.

Judge calls are identified with :func:`call_context` (run index, sample, check, repeat); see
:mod:`evalmark.models.noisy` and :mod:`evalmark.models.context`.
"""

from evalmark.models.adapters import (
    CallableChat,
    CallableEmbedding,
    chat_from_callable,
    embedding_from_callable,
)
from evalmark.models.canonical import request_key
from evalmark.models.cassette_file import Entry, read_cassette
from evalmark.models.context import CallContext, call_context, current_call
from evalmark.models.errors import (
    CassetteError,
    CassetteFormatError,
    CassetteMiss,
    ScriptExhausted,
    SecretFound,
)
from evalmark.models.fakes import EchoChat, HashEmbedding, ScriptedCall, ScriptedChat
from evalmark.models.modes import RecordMode
from evalmark.models.noisy import Flip, NoisyJudge
from evalmark.models.openai_compat import OpenAIChat, OpenAIEmbedding, openai_chat, openai_embedding
from evalmark.models.protocols import ChatModel, EmbeddingModel
from evalmark.models.recorder import CassetteUsage, RecordedChat, RecordedEmbedding, record_replay
from evalmark.models.rule_judge import RuleJudge
from evalmark.models.secrets import redact_pattern
from evalmark.models.values import ChatReply, ChatToolCall, Message, Usage

__all__ = [
    "CallContext",
    "CallableChat",
    "CallableEmbedding",
    "CassetteError",
    "CassetteFormatError",
    "CassetteMiss",
    "CassetteUsage",
    "ChatModel",
    "ChatReply",
    "ChatToolCall",
    "EchoChat",
    "EmbeddingModel",
    "Entry",
    "Flip",
    "HashEmbedding",
    "Message",
    "NoisyJudge",
    "OpenAIChat",
    "OpenAIEmbedding",
    "RecordMode",
    "RecordedChat",
    "RecordedEmbedding",
    "RuleJudge",
    "ScriptExhausted",
    "ScriptedCall",
    "ScriptedChat",
    "SecretFound",
    "Usage",
    "call_context",
    "chat_from_callable",
    "current_call",
    "embedding_from_callable",
    "openai_chat",
    "openai_embedding",
    "read_cassette",
    "record_replay",
    "redact_pattern",
    "request_key",
]
