"""``evalmark traces annotate``: run a suite's trace evaluations and write their verdicts back
as OTLP JSON spans (:mod:`evalmark.traces._annotate`), with the provenance of each check: its
kind and options, its judge prompt's sha256, the samples file's sha256."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark._files.atomic import AtomicFile
from evalmark.engine._settings import RunSettings
from evalmark.errors import SuiteError
from evalmark.gates._rules import GateResult
from evalmark.strategies._registry import get_strategy_kind
from evalmark.suite._identity import file_sha256
from evalmark.suite._model import EvaluationSpec, Suite
from evalmark.suite._runner import build_judge, build_strategy, check_gate
from evalmark.suite._traces import run_traces, trace_cases
from evalmark.traces._annotate import Provenance, verdict_requests

__all__ = ["Annotated", "annotate_suite", "provenance_of"]


@dataclass(frozen=True, slots=True)
class Annotated:
    """What ``annotate_suite`` did: verdict spans written, traces annotated, the reports and
    the suite gate's conditions."""

    verdicts: int
    traces: int
    reports: tuple[Any, ...]
    gates: tuple[GateResult, ...]

    @property
    def passed(self) -> bool:
        """True when every gate condition held."""
        return all(gate.passed for gate in self.gates)


def _prompt_sha256(kind: str, options: dict[str, Any], base: Path) -> str | None:
    """The sha256 of the judge prompt's text: a catalog prompt's file text, a built-in
    prompt's system and body, or a prompt file named in the options."""
    from evalmark.models._prompts import get_prompt

    name = options.get("prompt") or get_strategy_kind(kind).prompt
    if not isinstance(name, str):
        return None
    try:
        prompt = get_prompt(name)
    except KeyError:
        path = base / name
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    text = prompt.text or f"{prompt.system}\n{prompt.body}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def provenance_of(evaluation: EvaluationSpec, base: Path) -> Provenance:
    """The provenance of an evaluation's verdicts."""
    kinds, options, prompts = {}, {}, {}
    for spec in evaluation.strategies:
        kinds[spec.label] = spec.kind
        options[spec.label] = dict(spec.options)
        digest = _prompt_sha256(spec.kind, dict(spec.options), base)
        if digest is not None:
            prompts[spec.label] = digest
    hashes = [file_sha256(p) or "" if isinstance(p, Path) else "" for p in evaluation.samples]
    return Provenance(kinds, options, prompts, ",".join(hashes) or None)


def annotate_suite(
    suite: Suite, output: str | os.PathLike[str], *, only: Sequence[str] = ()
) -> Annotated:
    """Run the suite's trace evaluations (those named in ``only``, when given), apply its
    gate to them, and write every verdict to ``output`` (OTLP JSON lines)."""
    chosen = [e for e in suite.evaluations if e.traces is not None]
    if only:
        chosen = [e for e in chosen if e.name in only]
    if not chosen:
        names = ", ".join(e.name for e in suite.evaluations)
        raise SuiteError(
            f"{suite.path}: no evaluation of traces to annotate (evaluations: {names})"
        )
    judge = build_judge(suite.judge, None) if suite.judged else None
    settings = RunSettings(suite.concurrency)
    reports, traces, verdicts = [], 0, 0
    with AtomicFile(output) as out, out.temp.open("ab") as handle:  # verdicts as they come
        for evaluation in chosen:
            selected = trace_cases(evaluation, ())
            checks = [build_strategy(spec, judge) for spec in evaluation.strategies]
            how = provenance_of(evaluation, suite.base)

            def write(chunk: Any, cases: Sequence[Any], how: Provenance = how) -> None:
                nonlocal traces, verdicts
                for request in verdict_requests(chunk, cases, how):
                    traces += 1
                    verdicts += len(request["resourceSpans"][0]["scopeSpans"][0]["spans"])
                    handle.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")

            reports.append(run_traces(evaluation, selected, checks, settings, suite.name, write))
    gates = check_gate(suite.gate, reports)
    return Annotated(verdicts, traces, tuple(reports), gates)
