"""A small offline retriever over the Roadlark policies: the application under test of the
``retriever`` evaluation in ``suite.yaml``.

Each paragraph of ``policies/*.md`` is a passage. A question and the passages are embedded with
evalmark's ``HashEmbedding`` (lexical, deterministic, no network) and the three passages with the
highest cosine similarity are returned, best first.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from evalmark.models import HashEmbedding

POLICIES = Path(__file__).resolve().parent / "policies"
TOP_K = 3
_MODEL = HashEmbedding(dim=1024)


@functools.cache
def passages() -> tuple[str, ...]:
    """Every paragraph of the policies (headings left out), in file order."""
    found: list[str] = []
    for path in sorted(POLICIES.glob("*.md")):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            text = " ".join(block.split())
            if text and not text.startswith("#"):
                found.append(text)
    return tuple(found)


@functools.cache
def _passage_vectors() -> np.ndarray:
    return _MODEL.embed(list(passages()))


def retrieve(question: str) -> list[str]:
    """The ``TOP_K`` passages most similar to ``question``, best first (ties: file order)."""
    scores = _passage_vectors() @ _MODEL.embed([question])[0]
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
    return [passages()[i] for i in order[:TOP_K]]
