"""A trace evaluation in bounded memory: cases are spooled and scored a chunk at a time, so a
chunked run gives the same report and verdicts as one run, the memory a run adds for a
larger file is a small part of the file's size, and the report's rows are kept on disk, not in
memory (measured in fresh processes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import trace_producers as tp
from evalmark import load_suite
from evalmark.report import render_report
from evalmark.suite import _trace_spool
from evalmark.suite._trace_annotate import annotate_suite

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "traces"


def _rows(report: object) -> list[tuple[object, ...]]:
    return [
        (
            row.name,
            row.tags,
            row.output,
            {k: (r.score, r.passed, r.explanation) for k, r in row.results.items()},
        )
        for row in report.rows()  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize("samples", [True, False], ids=["paired with samples", "traces alone"])
def test_a_chunked_evaluation_gives_the_same_report_and_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, samples: bool
) -> None:
    folder = tmp_path / "suite"
    shutil.copytree(GOLDEN, folder)
    if not samples:
        text = (folder / "suite.yaml").read_text("utf-8")
        text = text.replace("samples: expected.yaml", "").replace("  - contains-facts", "")
        (folder / "suite.yaml").write_text(text.replace("mode: strict", "mode: subset"))
    suite = load_suite(folder)
    whole = annotate_suite(suite, tmp_path / "whole.jsonl")
    monkeypatch.setattr(_trace_spool, "CHUNK", 1)
    chunked = annotate_suite(suite, tmp_path / "chunked.jsonl")
    assert (tmp_path / "chunked.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    expected = (6, 3) if samples else (3, 3)
    assert (chunked.verdicts, chunked.traces) == (whole.verdicts, whole.traces) == expected
    (one,), (other,) = whole.reports, chunked.reports
    assert _rows(other) == _rows(one)
    assert [other.usage(i) for i in range(len(other))] == [one.usage(i) for i in range(len(one))]
    assert chunked.gates == whole.gates and whole.gates
    assert other.metadata == one.metadata
    for form in ("json", "markdown", "html"):
        assert render_report(other, form) == render_report(one, form)


def _trace_file(path: Path, traces: int, padding: int) -> int:
    """``traces`` agent runs (recorded with the OpenTelemetry SDK), one request a line, each
    carrying ``padding`` characters of an attribute the reader keeps in metadata."""
    template = tp.otlp_json(tp.encode(tp.agent_spans(["session-0"])))
    trace_id = json.loads(template)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    padded = template.replace(
        '"app.build"',
        f'"app.notes", "value": {{"stringValue": "{"x" * padding}"}}}}, {{"key": "app.build"',
        1,
    )
    with path.open("w", encoding="utf-8") as out:
        for number in range(traces):
            line = padded.replace(trace_id, f"{number + 1:032x}")
            out.write(line.replace('"session-0"', f'"session-{number}"') + "\n")
    return path.stat().st_size


_MEASURE = """
import resource, sys
from evalmark.cli import main
main(["traces", "annotate", sys.argv[1], "-o", sys.argv[2]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _peak_rss(
    folder: Path, traces: int, padding: int = 30_000, checks: str = "exact-match", gate: str = ""
) -> tuple[int, int]:
    """The trace file's size and the peak resident memory of annotating it (``checks``: the
    suite's strategies; ``gate``: its gate)."""
    folder.mkdir()
    size = _trace_file(folder / "traces.jsonl", traces, padding)
    (folder / "suite.yaml").write_text(
        "name: many\n"
        "traces: {path: traces.jsonl, match: session.id, window: 200}\n"
        f"strategies: [{checks}]\n" + (f"gate: {gate}\n" if gate else ""),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(folder), str(folder / "verdicts.jsonl")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.stderr == ""
    return size, int(done.stdout.split()[-1])


def test_the_memory_of_an_evaluation_does_not_grow_with_the_file(tmp_path: Path) -> None:
    # the same process measured on a file and on one five times larger (both several chunks
    # and windows long): what the larger file adds must be a small part of what it adds on
    # disk (holding the cases, as before the spool, took more than the file itself)
    assert _trace_spool.CHUNK < 300
    small_size, small_rss = _peak_rss(tmp_path / "small", 300)
    large_size, large_rss = _peak_rss(tmp_path / "large", 1_500)
    assert large_size - small_size > 40_000_000
    assert large_rss - small_rss < 0.2 * (large_size - small_size)


def test_the_report_of_an_evaluation_keeps_few_bytes_a_trace(tmp_path: Path) -> None:
    # many small traces, so that the report's rows (results, answers, usage), not the cases,
    # are what grows: each scored chunk's rows go to a temporary file, and memory keeps a
    # trace's name and figures (held as results they took over 15 KB a trace here)
    checks, gate = "exact-match, contains-facts", "{pass-rate: 0.0}"
    _, small_rss = _peak_rss(tmp_path / "small", 600, 0, checks, gate)
    _, large_rss = _peak_rss(tmp_path / "large", 3_000, 0, checks, gate)
    assert large_rss - small_rss < 3_000 * (3_000 - 600)
