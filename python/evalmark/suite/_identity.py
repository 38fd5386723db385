"""What produced each answer of a suite run: the model, the recordings that answered, the build.

A recorded build notes, per question, a digest of each recording it replayed (the request and
the recorded reply); a case's identity is the model id, the digest of those recordings and the
build. Two runs whose case has the same identity got the same answer, so a verdict that changed
between them is the judge's (or the check's) noise; a new model or a re-recorded answer is a
new identity. The history (``evalmark history flaky``) reads it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.digest import file_sha256 as _file_sha256

__all__ = ["AnswerLog", "AnswerSource", "file_sha256", "sources_of"]


@dataclass(frozen=True, slots=True)
class AnswerSource:
    """What produced one case's answer: ``model_id``, the SHA-256 of the recordings that
    answered it (``None``: a live function answered) and the ``build`` (``None``: no build)."""

    model_id: str | None
    recordings: str | None
    build: str | None


def _digest(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of a file's bytes (read in chunks), ``None`` when it cannot be read."""
    try:
        return _file_sha256(path)
    except OSError:
        return None


class AnswerLog:
    """The recordings a recorded build replayed, per question (thread-safe)."""

    def __init__(self, model_id: str, build: str) -> None:
        self.model_id = model_id
        self.build = build
        self._lock = threading.Lock()
        self._seen: dict[str, set[str]] = {}

    def note(self, question: str, messages: Sequence[Mapping[str, str]], reply: Any) -> None:
        """Note that ``reply`` (a ``ChatReply``) answered ``messages`` asked for ``question``."""
        request = json.dumps(
            {"model": self.model_id, "messages": list(messages)},
            sort_keys=True,
            ensure_ascii=False,
        ).encode("utf-8")
        one = _digest((request, msgspec.json.encode(reply)))
        with self._lock:
            self._seen.setdefault(question, set()).add(one)

    def source(self, question: str) -> AnswerSource:
        """What answered ``question``: the digest of every recording noted for it (``None``
        when none was)."""
        with self._lock:
            seen = sorted(self._seen.get(question, ()))
        recordings = _digest(s.encode("ascii") for s in seen) if seen else None
        return AnswerSource(self.model_id, recordings, self.build)


def sources_of(
    names_and_questions: Iterable[tuple[str, str]], log: AnswerLog
) -> dict[str, AnswerSource]:
    """Each sample's source (by sample name) from the questions it asked."""
    return {name: log.source(question) for name, question in names_and_questions}
