"""`evalmark score` knows ROUGE-1/2/Lsum (plain and stemmed), BLEU, chrF and chrF++, with the
kernels' own numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark import metrics
from evalmark.cli import main

PAIRS = [
    ("The cats are running to the mat.", "The cat runs to the mat."),
    ("Refunds within 30 days.\nEmail billing.", "Annual plans: refunds within 30 days."),
    ("", "something"),
]
KERNELS = {
    "rouge1": lambda e, a: metrics.rouge_n(e, a, n=1),
    "rouge1_stemmed": lambda e, a: metrics.rouge_n(e, a, n=1, stemmer="porter"),
    "rouge2": lambda e, a: metrics.rouge_n(e, a, n=2),
    "rouge2_stemmed": lambda e, a: metrics.rouge_n(e, a, n=2, stemmer="porter"),
    "rouge_lsum": metrics.rouge_lsum,
    "rouge_lsum_stemmed": lambda e, a: metrics.rouge_lsum(e, a, stemmer="porter"),
    "bleu": metrics.bleu,
    "chrf": metrics.chrf,
    "chrf_pp": lambda e, a: metrics.chrf(e, a, word_order=2),
}


def test_score_writes_the_kernel_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "pairs.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": str(i), "expected": e, "actual": a}) + "\n"
            for i, (e, a) in enumerate(PAIRS)
        )
    )
    out = tmp_path / "scores.jsonl"
    assert main(["score", str(source), "--metrics", ",".join(KERNELS), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(PAIRS)
    for row, (e, a) in zip(rows, PAIRS, strict=True):
        for name, kernel in KERNELS.items():
            assert row[name] == kernel(e, a), (name, e, a)
    capsys.readouterr()
