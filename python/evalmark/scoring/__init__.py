"""Streaming scorer: score files of any size with the batch metric kernels in constant memory.

    from evalmark.scoring import ScoreOptions, parse_metrics, score_file
    summary = score_file(Path("pairs.jsonl"), ScoreOptions(parse_metrics("token_f1,rouge_l")),
                         output=Path("scores.parquet"))

Inputs: JSONL, CSV, Parquet (with ``evalmark[arrow]``). Outputs: the same three, by extension.
An input with no content (no bytes, or only blank lines) is an error, as for every data file
evalmark reads; a CSV with only its header row, or a Parquet table without rows, scores no rows.
"""

from evalmark.scoring._chunks import Columns
from evalmark.scoring._pipeline import ScoreOptions, score_file
from evalmark.scoring._registry import parse_metrics
from evalmark.scoring._summary import Summary

__all__ = [
    "Columns",
    "ScoreOptions",
    "Summary",
    "parse_metrics",
    "score_file",
]
