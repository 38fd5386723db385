"""Write the BERTScore reference fixture from the ``bert_score`` package's own matching step.

Run it in a separate environment that has ``bert-score`` and ``torch`` (neither is an evalmark
dependency)::

    python -m venv bert-env && bert-env/bin/pip install bert-score numpy
    bert-env/bin/python tools/bertscore_reference.py

It draws token embeddings with numpy (fixed seeds, values rounded to 3 decimals so the JSON is
short and reads back to the same doubles), scores each pair alone with
``bert_score.utils.greedy_cos_idf`` on float64 tensors (a batch of one, so no padding), with
unit and with random idf weights, and rescales the scores with a baseline row shipped in the
package, the way ``bert_score.score(..., rescale_with_baseline=True)`` does. The result goes to
``tests/metrics/fixtures/bertscore_reference.json``, which
``tests/metrics/test_bertscore_reference.py`` compares with evalmark's ``bertscore``."""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import math
import sys
from pathlib import Path
from typing import Any

import bert_score  # type: ignore[import-not-found]
import numpy as np
import pandas as pd  # type: ignore[import-untyped]
import torch  # type: ignore[import-not-found]
from bert_score.utils import greedy_cos_idf  # type: ignore[import-not-found]

OUT = Path(__file__).resolve().parent.parent / "tests/metrics/fixtures/bertscore_reference.json"
BASELINE = ("en", "roberta-large", 17)  # the package's default model for English, its layer
# (dimension, reference tokens, candidate tokens), one pair per entry. No row has 2 tokens:
# greedy_cos_idf takes a row of 2 unmasked tokens for [CLS] [SEP] alone, an empty sentence, and
# sets its precision and recall to 0.
SHAPES = [
    (8, 1, 1),
    (8, 1, 40),
    (8, 40, 1),
    (8, 3, 5),
    (8, 5, 9),
    (8, 13, 11),
    (8, 29, 37),
    (8, 40, 40),
    (64, 1, 1),
    (64, 1, 40),
    (64, 17, 4),
    (64, 23, 31),
    (64, 40, 40),
    (256, 1, 1),
    (256, 3, 17),
    (256, 26, 9),
]


def _draw(rng: np.random.Generator, shape: tuple[int, ...], low: float | None = None) -> Any:
    """Random doubles rounded to 3 decimals: normal, or uniform in [low, 3) for idf weights."""
    values = rng.normal(size=shape) if low is None else rng.uniform(low, 3.0, size=shape)
    return np.round(values, 3)


def _package_scores(ref: Any, hyp: Any, w_ref: Any, w_hyp: Any) -> list[float]:
    """``greedy_cos_idf`` on one pair (a batch of one, every token unmasked), in float64."""
    ref_t = torch.tensor(ref[None], dtype=torch.float64)
    hyp_t = torch.tensor(hyp[None], dtype=torch.float64)
    ref_mask = torch.ones((1, ref.shape[0]), dtype=torch.long)
    hyp_mask = torch.ones((1, hyp.shape[0]), dtype=torch.long)
    ref_idf = torch.tensor(w_ref[None], dtype=torch.float64)
    hyp_idf = torch.tensor(w_hyp[None], dtype=torch.float64)
    p, r, f = greedy_cos_idf(ref_t, ref_mask, ref_idf, hyp_t, hyp_mask, hyp_idf)
    assert p.dtype == r.dtype == f.dtype == torch.float64, "the package must score in float64"
    return [float(p[0]), float(r[0]), float(f[0])]


def _baseline() -> tuple[dict[str, Any], Any]:
    """The package's baseline row, as its file spells it and as ``score`` reads it: a float32
    tensor (``pd.read_csv(path).iloc[num_layers]``, first column dropped, ``.float()``)."""
    lang, model, layer = BASELINE
    path = Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"
    rows = path.read_text().splitlines()
    assert rows[0] == "LAYER,P,R,F" and rows[1 + layer].startswith(f"{layer},"), path
    row = pd.read_csv(path).iloc[layer].to_numpy().copy()  # copied: torch wants it writable
    as_used = torch.from_numpy(row)[1:].float()
    about = {
        "file": f"rescale_baseline/{lang}/{model}.tsv",
        "layer": layer,
        "text": rows[1 + layer].split(",")[1:],
        "float32": [float(v) for v in as_used],
    }
    return about, as_used


def _rescale(scores: list[float], baselines: Any) -> list[float]:
    """``score``'s rescaling expression on float64 scores and its float32 baseline tensor."""
    all_preds = torch.tensor(scores, dtype=torch.float64)
    return [float(v) for v in (all_preds - baselines) / (1 - baselines)]


def _zero_row_case() -> dict[str, Any]:
    """What the package gives when a token embedding is all zeros (its norm is 0)."""
    rng = np.random.default_rng(99)
    ref, hyp = _draw(rng, (3, 8)), _draw(rng, (4, 8))
    ref[1] = 0.0
    scores = _package_scores(ref, hyp, np.ones(3), np.ones(4))
    return {
        "expected": ref.tolist(),
        "actual": hyp.tolist(),
        "package": [None if math.isnan(v) else v for v in scores],
    }


def main() -> int:
    """Score every pair with the package and write the fixture."""
    params = list(inspect.signature(greedy_cos_idf).parameters)
    want = ["ref_embedding", "ref_masks", "ref_idf", "hyp_embedding", "hyp_masks", "hyp_idf"]
    if params[:6] != want:
        print(f"greedy_cos_idf takes {params}, this script expects {want}", file=sys.stderr)
        return 1
    base, baselines = _baseline()
    cases = []
    for seed, (dim, n_ref, n_hyp) in enumerate(SHAPES):
        rng = np.random.default_rng(seed)
        ref, hyp = _draw(rng, (n_ref, dim)), _draw(rng, (n_hyp, dim))
        w_ref, w_hyp = _draw(rng, (n_ref,), 0.1), _draw(rng, (n_hyp,), 0.1)
        plain = _package_scores(ref, hyp, np.ones(n_ref), np.ones(n_hyp))
        weighted = _package_scores(ref, hyp, w_ref, w_hyp)
        cases.append(
            {
                "seed": seed,
                "expected": ref.tolist(),
                "actual": hyp.tolist(),
                "idf_expected": w_ref.tolist(),
                "idf_actual": w_hyp.tolist(),
                "package": plain,
                "package_idf": weighted,
                "package_rescaled": _rescale(plain, baselines),
            }
        )
    fixture = {
        "about": "bert_score.utils.greedy_cos_idf on float64 token embeddings, one pair per "
        "call; written by tools/bertscore_reference.py",
        "bert_score": importlib.metadata.version("bert-score"),
        "torch": torch.__version__.split("+")[0],
        "baseline": base,
        "cases": cases,
        "zero_row": _zero_row_case(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(cases)} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
