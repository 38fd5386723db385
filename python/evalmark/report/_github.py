"""What GitHub Actions shows of an evaluation, the one renderer of ``evalmark run --github``
and the pytest plugin's ``--evalmark-github``: a step summary (Markdown appended to the file
``$GITHUB_STEP_SUMMARY`` names) with the gates and the failing cases, and one
``::error file=…,line=…::`` annotation per failing case at the line that defines it. On by
itself when ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark.errors import SampleError

__all__ = [
    "GithubFailure",
    "GithubGate",
    "github_enabled",
    "github_output",
    "sample_lines",
    "write_summary",
]


@dataclass(frozen=True, slots=True)
class GithubFailure:
    """One failing case: its name, verdict, why, and where it is defined (when known)."""

    name: str
    verdict: str
    why: str
    place: tuple[Path, int] | None = None


@dataclass(frozen=True, slots=True)
class GithubGate:
    """One gate as the summary shows it: its label, actual and required figures, verdict."""

    label: str
    actual: float
    required: float
    passed: bool


def github_enabled(flag: bool | None) -> bool:
    """The flag when given, else whether the run is a GitHub Action (``GITHUB_ACTIONS``)."""
    return flag if flag is not None else os.environ.get("GITHUB_ACTIONS") == "true"


def sample_lines(paths: Iterable[Path]) -> dict[str, tuple[Path, int]]:
    """Where each sample starts: its name → (file, 1-based line), for YAML, JSON and JSONL."""
    from evalmark._files.json_read import read_json
    from evalmark._files.yaml_read import read_yaml

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
            # the JSON reader, as the samples loader: YAML refuses a surrogate-pair escape
            for item in read_json(data, str(path), SampleError):
                if isinstance(item.value, Mapping) and isinstance(item.value.get("name"), str):
                    found.setdefault(item.value["name"], (path, item.line))
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


def github_output(
    heading: str,
    gates: Sequence[Any],
    failures: Sequence[GithubFailure],
    *,
    logs: Sequence[Path] = (),
) -> tuple[list[str], str]:
    """The annotation lines and the step summary's Markdown: ``heading`` (a ``##`` title), a
    table of ``gates`` (each with ``label``, ``actual``, ``required``, ``passed``), one of
    the ``failures``, and the paths of the inspect-compatible ``logs`` of the run."""
    lines = [f"## {heading}", ""]
    if gates:
        lines += ["| gate | actual | required | result |", "|---|---|---|---|"]
    for gate in gates:
        result = "pass" if gate.passed else "**FAILED**"
        lines.append(
            f"| {_cell(gate.label)} | {gate.actual:.3g} | {gate.required:.3g} | {result} |"
        )
    annotations: list[str] = []
    for failure in failures:
        title = _property(f"evalmark: {failure.name} {failure.verdict}")
        where = ""
        if failure.place is not None:
            file, line = failure.place
            where = f"file={_property(_relative(file))},line={line},"
        annotations.append(f"::error {where}title={title}::{_data(failure.why)}")
    if failures:
        lines += ["", f"### Failing cases ({len(failures)})", ""]
        lines += ["| case | verdict | why |", "|---|---|---|"]
        lines += [f"| {_cell(f.name)} | {f.verdict} | {_cell(f.why)} |" for f in failures]
    if logs:
        shown = ", ".join(f"`{_relative(log)}`" for log in logs)
        lines += ["", f"Inspect log: {shown} (open it with `inspect view`)"]
    return annotations, "\n".join(lines) + "\n\n"


def write_summary(summary: str, summary_path: str | None) -> None:
    """Append ``summary`` to the file ``summary_path`` names (``$GITHUB_STEP_SUMMARY``);
    nothing when it is unset."""
    if summary_path:
        with open(summary_path, "a", encoding="utf-8") as file:
            file.write(summary)
