"""A real embedding model that runs offline: WordLlama's ``l2_supercat_256`` (``[embeddings]``).

WordLlama is a static token-embedding table (32,000 Llama-2 tokens by 256 dimensions, 16 MB of
float16) trained so that the mean of a text's token vectors is a sentence embedding. Its wheel
carries the table and the tokenizer, so nothing is downloaded: this module reads the two files
from the installed package itself. It does not call ``WordLlama.load()``, which (wordllama
0.4.0) looks for the tokenizer in a folder the wheel does not have and fetches it from Hugging
Face, and it does not import the ``wordllama`` package, whose import configures the root logger.

Determinism: tokenization is a pure function of the text, the table lookup copies rows, and the
mean and L2 norm are taken in float64 by NumPy element-wise operations (no BLAS, no threads), row
by row, so a text's vector is the same bit for bit whatever it is batched with, on every run and
with any number of tokenizer threads.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evalmark.errors import OptionalDependencyError
from evalmark.models._protocols import FloatArray

__all__ = ["WORDLLAMA_MODELS", "WordLlamaEmbedding"]

# The configurations whose weights and tokenizer ship in the wordllama wheel: name ->
# (weights file, tokenizer file, tensor key).
WORDLLAMA_MODELS: dict[str, tuple[str, str, str]] = {
    "l2_supercat_256": (
        "weights/l2_supercat_256.safetensors",
        "tokenizers/l2_supercat_tokenizer_config.json",
        "embedding.weight",
    ),
}

_LOADED: dict[str, tuple[Any, np.ndarray[Any, np.dtype[np.float16]]]] = {}
_LOCK = threading.Lock()


def _package_root() -> Path:
    """The installed wordllama package's folder, found without importing the package."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise OptionalDependencyError("wordllama", "embeddings", "the WordLlama embedding model")
    return Path(next(iter(spec.submodule_search_locations)))


def _load(name: str) -> tuple[Any, np.ndarray[Any, np.dtype[np.float16]]]:
    """The tokenizer and the (float16) embedding table of ``name``, read once per process."""
    with _LOCK:
        if name in _LOADED:
            return _LOADED[name]
        weights_file, tokenizer_file, key = WORDLLAMA_MODELS[name]
        root = _package_root()
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise OptionalDependencyError(
                exc.name or "tokenizers", "embeddings", "the WordLlama embedding model"
            ) from None
        for part in (weights_file, tokenizer_file):
            if not (root / part).is_file():
                raise OptionalDependencyError(
                    f"wordllama (with its bundled {part})",
                    "embeddings",
                    f"the WordLlama embedding model {name!r}",
                )
        table = np.ascontiguousarray(load_file(str(root / weights_file))[key], dtype=np.float16)
        tokenizer = Tokenizer.from_file(str(root / tokenizer_file))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        _LOADED[name] = (tokenizer, table)
        return tokenizer, table


class WordLlamaEmbedding:
    """WordLlama sentence embeddings, offline: the L2-normalized mean of the text's token
    vectors (float32, 256 dimensions for ``l2_supercat_256``). A text with no tokens embeds as
    the zero vector. :meth:`token_embeddings` gives the per-token vectors, for BERTScore.

    Needs the ``embeddings`` extra (``pip install 'evalmark[embeddings]'``); the weights come
    with the package, so it works with the network blocked. Named ``"wordllama:l2_supercat_256"``
    wherever an embedding model is given by name.
    """

    def __init__(self, config: str = "l2_supercat_256") -> None:
        if config not in WORDLLAMA_MODELS:
            raise ValueError(
                f"unknown WordLlama configuration {config!r}; the ones shipped in the wheel: "
                f"{', '.join(sorted(WORDLLAMA_MODELS))}"
            )
        self.config = config
        self.model_id = f"wordllama:{config}"
        self._tokenizer, self._table = _load(config)
        self.dim = int(self._table.shape[1])

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No default parameters."""
        return {}

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The token ids of each text (no special tokens)."""
        if isinstance(texts, str):
            raise TypeError("token_ids takes a sequence of texts, got a single string; wrap it")
        encoded = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        last = self._table.shape[0] - 1
        return [[min(max(i, 0), last) for i in enc.ids] for enc in encoded]

    def token_embeddings(self, texts: Sequence[str]) -> list[FloatArray]:
        """Each text's token vectors, one (tokens, dim) float32 array per text (static: a
        token's vector does not depend on its neighbours)."""
        return [self._table[ids].astype(np.float32) for ids in self.token_ids(texts)]

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """One unit-length row per text, shape (len(texts), dim)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, ids in enumerate(self.token_ids(texts)):
            if ids:
                mean = self._table[ids].astype(np.float64).mean(axis=0)
                norm = float(np.sqrt(np.sum(mean * mean)))
                if norm > 0.0:
                    out[row] = mean / norm
        return out.astype(np.float32)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Same as :meth:`embed` (it is fast and never waits on I/O)."""
        return self.embed(texts)

    def __repr__(self) -> str:
        return f"WordLlamaEmbedding({self.config!r})"
