"""``evalmark run --github``: what GitHub Actions shows of a run. A step summary (Markdown
appended to the file ``$GITHUB_STEP_SUMMARY`` names) with the gates and the failing cases, and
one ``::error file=…,line=…::`` annotation per failing case, pointing at the line of its sample
in its samples file. On by itself when ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from evalmark.errors import SampleError

__all__ = ["github_enabled", "sample_lines", "write_github"]


def github_enabled(flag: bool | None) -> bool:
    """``--github`` / ``--no-github`` when given, else whether the run is a GitHub Action."""
    return flag if flag is not None else os.environ.get("GITHUB_ACTIONS") == "true"


def sample_lines(paths: Iterable[Path]) -> dict[str, tuple[Path, int]]:
    """Where each sample starts: its name → (file, 1-based line), for YAML, JSON and JSONL."""
    from evalmark._files.yaml_read import read_yaml, read_yaml_document

    found: dict[str, tuple[Path, int]] = {}
    for path in paths:
        data = path.read_bytes()
        if path.suffix == ".jsonl":
            for number, text in enumerate(data.decode("utf-8").splitlines(), start=1):
                record = json.loads(text) if text.strip() else None
                if isinstance(record, Mapping) and isinstance(record.get("name"), str):
                    found.setdefault(record["name"], (path, number))
            continue
        if path.suffix == ".json":
            document = read_yaml_document(data, str(path), SampleError)
            items = document.value if document is not None else []
            for index, item in enumerate(items if isinstance(items, list) else []):
                if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                    assert document is not None
                    found.setdefault(item["name"], (path, document.position((index,))[0]))
            continue
        for raw in read_yaml(data, str(path), SampleError):
            if isinstance(raw.value, Mapping) and isinstance(raw.value.get("name"), str):
                found.setdefault(raw.value["name"], (path, raw.line))
    return found


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _relative(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def write_github(outcome: Any, out: TextIO, summary_path: str | None) -> None:
    """Print the annotations to ``out`` and append the step summary to ``summary_path`` (the
    value of ``$GITHUB_STEP_SUMMARY``; nothing is written when it is unset)."""
    suite = outcome.suite
    verdict = "passed" if outcome.passed else "FAILED"
    build = f", build {outcome.build}" if getattr(outcome, "build", None) else ""
    lines = [f"## evalmark: suite {suite.name}{build}: {verdict}", ""]
    lines += ["| gate | actual | required | result |", "|---|---|---|---|"]
    for gate in outcome.gates:
        result = "pass" if gate.passed else "**FAILED**"
        lines.append(
            f"| {_cell(gate.label)} | {gate.actual:.3g} | {gate.required:.3g} | {result} |"
        )
    failing: list[str] = []
    for evaluation, report in zip(outcome.evaluations, outcome.reports, strict=False):
        where = sample_lines(evaluation.samples) if evaluation.samples else {}
        for row in report.failing_rows():
            explanation = row.explanation or row.verdict
            failing.append(f"| {_cell(row.name)} | {row.verdict} | {_cell(explanation)} |")
            place = where.get(row.name)
            title = _property(f"evalmark: {row.name} {row.verdict}")
            if place is None:
                out.write(f"::error title={title}::{_data(explanation)}\n")
            else:
                file, line = place
                out.write(
                    f"::error file={_property(_relative(file))},line={line},title={title}::"
                    f"{_data(explanation)}\n"
                )
    if failing:
        lines += ["", f"### Failing cases ({len(failing)})", ""]
        lines += ["| case | verdict | why |", "|---|---|---|", *failing]
    if summary_path:
        with open(summary_path, "a", encoding="utf-8") as summary:
            summary.write("\n".join(lines) + "\n\n")
