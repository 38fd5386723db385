"""Embedding models given by name, as suite files and the ``model=`` options spell them."""

from __future__ import annotations

from typing import Any

from evalmark.errors import StrategyError
from evalmark.models._adapters import embedding_from_callable
from evalmark.models._fakes import HashEmbedding
from evalmark.models._protocols import EmbeddingModel
from evalmark.models._wordllama import WORDLLAMA_MODELS, WordLlamaEmbedding

__all__ = ["EMBEDDING_MODEL_NAMES", "embedding_model"]

EMBEDDING_MODEL_NAMES: tuple[str, ...] = (
    "hash",
    *(f"wordllama:{config}" for config in sorted(WORDLLAMA_MODELS)),
)
"""The names :func:`embedding_model` resolves: the offline hashing embedding, and each WordLlama
configuration whose weights ship in the ``wordllama`` wheel (``evalmark[embeddings]``)."""


def embedding_model(
    spec: Any = None, *, dim: int = 256, seed: int = 0, model_id: str | None = None
) -> EmbeddingModel:
    """The embedding model ``spec`` stands for: a name, a function, or a model object.

    ``None`` and ``"hash"`` give :class:`HashEmbedding` (with ``dim`` and ``seed``);
    ``"wordllama"`` or ``"wordllama:l2_supercat_256"`` give the offline WordLlama model (needs
    the ``embeddings`` extra); a function ``fn(texts) -> array-like (n, dim)``, sync or async,
    is wrapped as a model (``model_id`` names it in cassettes); an object with ``.embed`` is
    returned as it is."""
    if spec is None or spec == "hash":
        return HashEmbedding(dim=dim, seed=seed)
    if not isinstance(spec, str):
        if callable(getattr(spec, "embed", None)):
            model: EmbeddingModel = spec
            return model
        if callable(spec):
            return embedding_from_callable(spec, model_id=model_id)
        raise StrategyError(
            f"an embedding model is a name ({', '.join(EMBEDDING_MODEL_NAMES)}), a function "
            f"of a list of texts, or an object with .embed; got {type(spec).__name__}"
        )
    family, _, config = spec.partition(":")
    if family == "wordllama":
        return WordLlamaEmbedding(config or "l2_supercat_256")
    raise StrategyError(
        f"unknown embedding model {spec!r}; the names evalmark knows: "
        f"{', '.join(EMBEDDING_MODEL_NAMES)} (or pass an embedding model object)"
    )
