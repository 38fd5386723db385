"""The recorded builds of imported conversations: one cassette per build whose requests are
what a conversation suite sends at each turn (the thread's earlier messages and the new user
message, :func:`~evalmark.suite._conversation_run.conversation_messages`) and whose answers are
the replies the source recorded, so ``evalmark run`` replays each conversation offline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evalmark.interop._model import ImportedConversation
from evalmark.models import ScriptedChat, record_replay

__all__ = ["MODEL_ID", "record_conversations"]

MODEL_ID = "imported"
"""The model id of an imported suite's application (its recorded builds answer under it)."""


def record_conversations(
    conversations: Sequence[ImportedConversation], folder: Path
) -> dict[str, str]:
    """Write ``builds/BUILD.jsonl`` for every build that answers the conversations; the
    suite's ``builds`` entries (build name to cassette path, relative to ``folder``)."""
    names = list(dict.fromkeys(b for c in conversations for b in c.answers))
    builds: dict[str, str] = {}
    for build in names:
        cassette = folder / "builds" / f"{build}.jsonl"
        cassette.unlink(missing_ok=True)
        replies = [r for c in conversations for r in c.answers.get(build, ())]
        chat = ScriptedChat(replies, model_id=MODEL_ID)
        recorded = record_replay(chat, cassette, "rewrite", model_id=MODEL_ID)
        with recorded.buffered():  # one write of the cassette
            for conversation in conversations:
                history: list[dict[str, str]] = []
                for message, reply in zip(
                    conversation.turns, conversation.answers.get(build, ()), strict=False
                ):
                    recorded.chat([*history, {"role": "user", "content": message}])
                    history += [
                        {"role": "user", "content": message},
                        {"role": "assistant", "content": reply},
                    ]
        builds[build] = f"builds/{build}.jsonl"
    return builds
