"""Properties of ``evalmark score`` for generated rows: the command writes the bytes
``score_file`` writes, for any chunk size, worker count and bad-row policy; and its summary is the
library's summary."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.cli import main
from evalmark.errors import ScoringInputError
from evalmark.scoring import ScoreOptions, parse_metrics, score_file
from evalmark.scoring._pipeline import summary_json

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=15)
rows = st.lists(
    st.tuples(texts, texts | st.none()), min_size=1, max_size=12
)  # an actual of None: a bad row


@settings(max_examples=examples(30))
@given(
    rows,
    st.sampled_from(["token_f1", "rouge_l,levenshtein_distance", "bleu,chrf,wer"]),
    st.integers(1, 5),
    st.sampled_from([1, 2]),
    st.sampled_from(["fail", "skip", "null"]),
    st.sampled_from([".jsonl", ".csv"]),
)
def test_the_command_writes_what_score_file_writes(
    generated: list[tuple[str, str | None]],
    metrics: str,
    chunk_size: int,
    workers: int,
    on_error: str,
    suffix: str,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / "rows.jsonl"
        src.write_text(
            "".join(
                json.dumps({"id": f"r{i}", "expected": e, "actual": a}) + "\n"
                for i, (e, a) in enumerate(generated)
            ),
            encoding="utf-8",
        )
        by_cli, by_lib = Path(folder) / f"cli{suffix}", Path(folder) / f"lib{suffix}"
        summary_file = Path(folder) / "summary.json"
        argv = ["score", str(src), "--metrics", metrics, "-o", str(by_cli)]
        argv += ["--chunk-size", str(chunk_size), "--workers", str(workers)]
        argv += ["--on-error", on_error, "--summary", str(summary_file)]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(argv)
        options = ScoreOptions(
            parse_metrics(metrics),
            chunk_size=chunk_size,
            workers=workers,
            on_error=on_error,  # type: ignore[arg-type]
        )
        try:
            summary = score_file(src, options, output=by_lib)
        except ScoringInputError:
            assert code == 2 and not by_cli.exists()
            return
        assert code == 0
        assert by_cli.read_bytes() == by_lib.read_bytes()
        assert json.loads(summary_file.read_text("utf-8")) == json.loads(summary_json(summary))
