"""The JSONL reader decodes a chunk a few thousand lines at a time, and the first chunks of a
JSONL or CSV file are short: a bad row past the first piece, or in a later, longer chunk, is
named at its line, and every other row keeps the score a one-row-at-a-time read gives it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evalmark.errors import ScoringInputError
from evalmark.scoring import ScoreOptions, parse_metrics, score_file
from evalmark.scoring._chunks import FIRST_CHUNK_ROWS

ROWS = FIRST_CHUNK_ROWS * 6  # the chunks grow past the first piece of lines decoded
BAD = FIRST_CHUNK_ROWS * 5 + 7  # data row (0-based) of the bad row


def _pairs() -> list[tuple[str, str]]:
    return [(f"the cat sat {i % 7}", f"a cat sat on {i % 5}") for i in range(ROWS)]


def _write(path: Path, bad: bool) -> Path:
    pairs = _pairs()
    if path.suffix == ".jsonl":
        lines = [json.dumps({"expected": e, "actual": a}) for e, a in pairs]
        if bad:
            lines[BAD] = json.dumps({"expected": 3, "actual": "x"})
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        with path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["expected", "actual"])
            writer.writerows(
                [e, a] if i != BAD or not bad else [e] for i, (e, a) in enumerate(pairs)
            )
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_bad_row_in_a_later_chunk_is_named_at_its_line(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"pairs{suffix}", bad=True)
    with pytest.raises(ScoringInputError) as caught:
        score_file(path, ScoreOptions(parse_metrics("token_f1"), chunk_size=ROWS))
    line = BAD + 1 if suffix == ".jsonl" else BAD + 2  # CSV: after the header
    assert caught.value.where == f"line {line}"


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_scores_do_not_depend_on_the_chunk_size(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"pairs{suffix}", bad=True)
    outputs = []
    for size in (FIRST_CHUNK_ROWS // 2 + 1, ROWS):
        out = tmp_path / f"scores-{size}.jsonl"
        options = ScoreOptions(parse_metrics("token_f1,rouge_l"), chunk_size=size, on_error="null")
        summary = score_file(path, options, output=out)
        outputs.append((out.read_bytes(), summary))
    assert outputs[0] == outputs[1]
    assert outputs[0][1].metrics["token_f1"].nulls == 1
