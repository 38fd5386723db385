"""Every importer that reads JSON Lines reads it with the project's one JSON Lines reader: a
malformed line is an ImportFormatError at its file, line and column (never a traceback), and a
file saved with a byte order mark imports like the same file without one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read

FIXTURES = Path(__file__).parent / "fixtures"
OE = FIXTURES / "openai_evals"
LM_EVAL = FIXTURES / "lm_eval" / "samples_gsm8k_2024-05-01T12-00-00.000000.jsonl"
GSM8K = {"ignore_case": True, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}
HOSTED_ALLOW = ["criterion:text_similarity:fuzzy_match"]

# (format, the JSON Lines fixture, how to read it given a copy of that file)
SOURCES: dict[str, tuple[Path, Any]] = {
    "lm-eval": (LM_EVAL, lambda p: read("lm-eval", p, options=GSM8K)),
    "ragas": (FIXTURES / "ragas" / "single_turn.jsonl", lambda p: read("ragas", p)),
    "deepeval": (FIXTURES / "deepeval" / "goldens.jsonl", lambda p: read("deepeval", p)),
    "openai-hosted": (
        OE / "hosted" / "output_items.jsonl",
        lambda p: read(
            "openai-evals", OE / "hosted" / "eval.json", log=str(p), allow_loss=HOSTED_ALLOW
        ),
    ),
    "openai-record-log": (
        OE / "run.log.jsonl",
        lambda p: read(
            "openai-evals",
            OE / "evals" / "capitals.yaml",
            data_dir=str(OE / "data"),
            log=str(p),
        ),
    ),
}


def _copy(source: Path, folder: Path) -> Path:
    """A copy under the fixture's name (lm-eval reads the task from it)."""
    target = folder / source.name
    shutil.copyfile(source, target)
    return target


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_malformed_line_is_located_at_its_line_and_column(name: str, tmp_path: Path) -> None:
    fixture, load = SOURCES[name]
    path = _copy(fixture, tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"', "'", 1)  # a key quoted as JavaScript allows, JSON not
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        load(path)
    (problem,) = caught.value.problems
    assert (problem.path, problem.line, problem.column) == (str(path), 2, 2)
    assert "malformed JSON" in problem.message


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_byte_order_mark_changes_nothing(name: str, tmp_path: Path) -> None:
    fixture, load = SOURCES[name]
    plain = load(fixture)
    path = _copy(fixture, tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + fixture.read_bytes())
    marked = load(path)
    assert marked.samples == plain.samples
    assert marked.outputs == plain.outputs
