"""The offline WordLlama embedding model (``evalmark[embeddings]``) and embedding models by name.

Tests that need the model skip when the ``wordllama`` package is not installed; the name
resolution and the missing-extra error are tested everywhere."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from evalmark import Sample
from evalmark.errors import OptionalDependencyError, StrategyError
from evalmark.metrics import bertscore_batch
from evalmark.models import HashEmbedding, embedding_model, record_replay
from evalmark.models._named import EMBEDDING_MODEL_NAMES
from evalmark.strategies import SemanticSimilarity
from evalmark.strategies._registry import build_strategy

HAVE_WORDLLAMA = importlib.util.find_spec("wordllama") is not None
needs_wordllama = pytest.mark.skipif(not HAVE_WORDLLAMA, reason="needs evalmark[embeddings]")
NAME = "wordllama:l2_supercat_256"

# Written for this test: each sentence and its paraphrase share few words, and no two pairs share
# a topic.
PAIRS = [
    (
        "The meeting was moved to next Tuesday.",
        "They rescheduled the meeting for the following Tuesday.",
    ),
    ("How do I reset my password?", "What are the steps to change a forgotten password?"),
    ("The restaurant was packed and noisy.", "The diner was crowded and loud."),
    ("She bought a new car yesterday.", "Yesterday she purchased a new automobile."),
    (
        "The flight was cancelled because of the storm.",
        "Bad weather caused the airline to cancel the plane trip.",
    ),
    ("Please send me the invoice by email.", "Could you email the bill to me?"),
    ("The child is sleeping in the bedroom.", "The kid is asleep in his room."),
    (
        "Our profits rose sharply this quarter.",
        "Earnings increased a lot in the last three months.",
    ),
    (
        "The doctor prescribed antibiotics for the infection.",
        "The physician gave her medicine to treat the bacterial illness.",
    ),
    ("I can't find my keys anywhere.", "My keys are lost and I have searched everywhere."),
    (
        "The river flooded the village after heavy rain.",
        "Heavy rainfall made the river overflow into the town.",
    ),
    ("He plays the guitar in a rock band.", "He is a guitarist in a rock group."),
]
LEFT = [a for a, _ in PAIRS]
RIGHT = [b for _, b in PAIRS]


def _ranked_right(model: object) -> int:
    """How many pairs score above every unrelated sentence, both ways."""
    rows = embedding_model(model).embed(LEFT + RIGHT).astype(np.float64)
    sims = rows[: len(PAIRS)] @ rows[len(PAIRS) :].T
    return sum(
        int(np.argmax(sims[i])) == i and int(np.argmax(sims[:, i])) == i for i in range(len(PAIRS))
    )


def _run(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter with this tree importable; its stdout."""
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_names_resolve_to_models() -> None:
    assert EMBEDDING_MODEL_NAMES == ("hash", NAME)
    assert isinstance(embedding_model(None), HashEmbedding)
    assert embedding_model("hash", dim=32).dim == 32
    mine = HashEmbedding(dim=8)
    assert embedding_model(mine) is mine
    with pytest.raises(ValueError, match="the names evalmark knows: hash, wordllama:"):
        embedding_model("bert-base")
    with pytest.raises(ValueError, match="l2_supercat_256"):
        embedding_model("wordllama:l3_supercat_1024")


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalmark.models import _wordllama

    monkeypatch.setattr(_wordllama, "_LOADED", {})
    monkeypatch.setattr(_wordllama.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(OptionalDependencyError, match=r"pip install 'evalmark\[embeddings\]'"):
        SemanticSimilarity(model=NAME)


def test_suite_options_name_the_model() -> None:
    with pytest.raises(StrategyError, match="dim and seed are options of model: hash"):
        build_strategy("semantic-similarity", {"name": "s", "model": NAME, "dim": 64})
    with pytest.raises(StrategyError, match="relevance: embedding"):
        build_strategy("contextual-recall", {"name": "c", "model": NAME})
    built = build_strategy("semantic-similarity", {"name": "s", "model": "hash", "dim": 64})
    assert built.model.model_id == "hash-embedding-64-0"


@needs_wordllama
def test_it_ranks_paraphrases_above_unrelated_sentences() -> None:
    assert _ranked_right(NAME) == len(PAIRS)
    # the lexical hashing embedding does not: the set needs a model that knows synonyms
    assert _ranked_right(HashEmbedding()) < len(PAIRS)


@needs_wordllama
def test_checks_score_paraphrases_with_it() -> None:
    check = SemanticSimilarity(0.5, model=NAME)
    sample = Sample(
        name="s", parameters=["q"], expected_output="The child is sleeping in the bedroom."
    )
    kid = check.evaluate(sample, "The kid is asleep in his room.")
    off = check.evaluate(sample, "Our profits rose sharply this quarter.")
    assert kid.passed and not off.passed
    assert kid.score > 0.7 > 0.2 > off.score
    built = build_strategy(
        "contextual-recall", {"name": "c", "relevance": "embedding", "model": NAME}
    )
    assert built.model.model_id == NAME
    sim = build_strategy("semantic-similarity", {"name": "s", "model": NAME})
    assert sim.model.model_id == NAME


@needs_wordllama
def test_token_embeddings_feed_bertscore() -> None:
    model = embedding_model(NAME)
    texts = ["The doctor prescribed antibiotics.", "", "He plays guitar."]
    tokens = model.token_embeddings(texts)
    counts = [len(ids) for ids in model.token_ids(texts)]
    assert counts[0] > 3 and counts[1] == 0
    assert [t.shape for t in tokens] == [(n, 256) for n in counts]
    assert all(t.dtype == np.float32 for t in tokens)
    refs = model.token_embeddings(LEFT)
    hyps = model.token_embeddings(RIGHT)
    matched = bertscore_batch(refs, hyps)[:, 2]
    shifted = bertscore_batch(refs, hyps[1:] + hyps[:1])[:, 2]
    assert (matched > shifted).sum() >= len(PAIRS) - 1
    # the sentence vector is the normalized mean of the token vectors
    mean = tokens[0].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(
        model.embed(["The doctor prescribed antibiotics."])[0],
        mean / np.linalg.norm(mean),
        rtol=0,
        atol=1e-7,
    )


@needs_wordllama
def test_same_vectors_every_time_in_any_batch_and_thread() -> None:
    model = embedding_model(NAME)
    texts = [*LEFT, *RIGHT, "", "naïve café 東京 🙂", "x" * 5000]
    first = model.embed(texts)
    assert first.dtype == np.float32 and first.shape == (len(texts), 256)
    assert not first[len(PAIRS) * 2].any(), "a text with no tokens is the zero vector"
    assert model.embed(texts).tobytes() == first.tobytes()
    one_by_one = np.concatenate([model.embed([t]) for t in texts])
    assert one_by_one.tobytes() == first.tobytes()
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda t: model.embed([t]), texts))
    assert np.concatenate(parallel).tobytes() == first.tobytes()


@needs_wordllama
def test_same_vectors_with_one_and_two_threads_in_fresh_processes() -> None:
    code = f"""
        import hashlib
        from evalmark.models._named import embedding_model
        texts = {LEFT + RIGHT!r} * 20
        rows = embedding_model({NAME!r}).embed(texts)
        print(hashlib.sha256(rows.tobytes()).hexdigest())
    """
    digests = {
        _run(
            code, RAYON_NUM_THREADS=n, OMP_NUM_THREADS=n, OPENBLAS_NUM_THREADS=n, MKL_NUM_THREADS=n
        )
        for n in ("1", "2")
    }
    here = embedding_model(NAME).embed((LEFT + RIGHT) * 20)
    assert digests == {hashlib.sha256(here.tobytes()).hexdigest() + "\n"}


@needs_wordllama
def test_loads_with_the_network_blocked_and_writes_no_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    out = _run(
        f"""
        import evalmark
        with evalmark.offline(allow=[]):
            from evalmark.models._named import embedding_model
            rows = embedding_model({NAME!r}).embed(["offline", "still offline"])
        print(rows.shape)
        """,
        HOME=str(home),
        HF_HUB_OFFLINE="1",
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    assert out.startswith("(2, 256)")
    assert list(home.iterdir()) == []


@needs_wordllama
def test_equals_wordllamas_own_mean_pooling() -> None:
    out = _run(
        f"""
        import numpy as np
        from wordllama.inference import WordLlamaInference
        from evalmark.models._named import embedding_model
        model = embedding_model({NAME!r})
        # a tokenizer of its own: WordLlamaInference switches padding on in the one it gets
        from tokenizers import Tokenizer
        own = Tokenizer.from_str(model._tokenizer.to_str())
        theirs = WordLlamaInference(model._table, own)
        theirs = theirs.embed({LEFT + RIGHT!r}, norm=True)
        ours = model.embed({LEFT + RIGHT!r})
        print(float(np.abs(theirs - ours).max()))
        """
    )
    assert float(out) < 1e-6


@needs_wordllama
def test_embedding_cassettes_record_and_replay_it(tmp_path: Path) -> None:
    cassette = tmp_path / "emb.jsonl"
    model = embedding_model(NAME)
    recorded = record_replay(model, cassette, mode="record-missing").embed(LEFT)
    assert recorded.tobytes() == model.embed(LEFT).tobytes()

    def unreachable(texts: list[str]) -> object:
        raise AssertionError("replay must not call the model")

    stand_in = embedding_model(unreachable, model_id=NAME)
    replayed = record_replay(stand_in, cassette, mode="replay").embed(LEFT[::-1])
    assert replayed.tobytes() == recorded[::-1].tobytes()
