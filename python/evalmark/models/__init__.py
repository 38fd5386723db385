"""Chat and embedding models: protocols, adapters, cassettes (record/replay), fakes, noisy judge.

Record once against the real model, commit the cassette, replay offline in CI::

    from openai import OpenAI
    from evalmark.models import openai_chat, record_replay

    judge = record_replay(openai_chat(OpenAI(), "gpt-4o-mini", temperature=0), "judge.jsonl")
    judge.chat([{"role": "user", "content": "Is the sky blue? Answer yes or no."}])

Run once with ``EVALMARK_RECORD_MODE=record-missing`` (and an API key) to record; afterwards,
and always when ``CI`` is set, calls replay from ``judge.jsonl`` and an unrecorded call raises
:class:`~evalmark.errors.CassetteMiss` saying first how to record it, then what differs. Modes:
``replay``, ``record-missing``, ``rewrite``, ``off``. A call is its request plus the ``repeat``
of its call context, so the same call replays the same recording however often and in whatever
order it is made; ``beyond_recorded`` (``repeat``, ``cycle``, ``error``) answers repeats that
were not recorded. Credentials are redacted before anything is hashed or written (by field name,
by the values the model was configured with, by format). The cassette is JSON Lines sorted by
key, safe to review and merge; ``evalmark cassette ls|verify|prune`` inspects it. Writers take
``<cassette>.lock`` and, in rewrite mode, ``<cassette>.rewrite.lock`` (git-ignore ``*.lock``).

Without a real model: :class:`ScriptedChat`, :class:`EchoChat`, :class:`RuleJudge` (word
overlap on evalmark's judge prompts; lexical, see its pinned failures) and
:class:`HashEmbedding`. :class:`NoisyJudge` flips a judge's verdicts at a seeded rate.

Judge calls are identified with :func:`call_context` (run index, sample, check, repeat): the
evaluation engine sets it; ``NoisyJudge`` draws from it and cassettes use ``repeat`` as the
sample index (run, sample and check never select another recording).
"""

from evalmark.models._adapters import chat_from_callable
from evalmark.models._context import call_context
from evalmark.models._fakes import EchoChat, HashEmbedding, ScriptedChat
from evalmark.models._named import embedding_model
from evalmark.models._noisy import NoisyJudge
from evalmark.models._openai_compat import openai_chat, openai_embedding
from evalmark.models._protocols import ChatModel, EmbeddingModel
from evalmark.models._recorder import record_replay
from evalmark.models._rule_judge import RuleJudge
from evalmark.models._values import ChatReply, ChatToolCall, Message, Usage

__all__ = [
    "ChatModel",
    "ChatReply",
    "ChatToolCall",
    "EchoChat",
    "EmbeddingModel",
    "HashEmbedding",
    "Message",
    "NoisyJudge",
    "RuleJudge",
    "ScriptedChat",
    "Usage",
    "call_context",
    "chat_from_callable",
    "embedding_model",
    "openai_chat",
    "openai_embedding",
    "record_replay",
]
