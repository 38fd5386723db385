"""lm-evaluation-harness sample logs (``--log_samples``: ``samples_<task>_<time>.jsonl``) of
``generate_until`` tasks scored by ``exact_match``.

A document (``doc_id``) is one sample: its prompt (``arguments``' first argument) is the
parameter, ``target`` the expected output. The harness writes a document once per filter
(gsm8k's ``strict-match`` and ``flexible-extract``): each filter is one recorded build whose
answer is that filter's ``filtered_resps``. The check is ``lm-eval-exact-match`` with the
task's options (``exact_match_options``: ``ignore_case``, ``ignore_punctuation``,
``regexes_to_ignore``, which the log does not record); the import re-scores every row and
refuses when a recorded ``exact_match`` differs, so the suite reproduces the harness's number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses, jsonl_rows, source_hash
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._lm_eval import lm_eval_exact_match

__all__ = ["read_lm_eval"]

_KEYS = {
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "filter",
    "metrics",
    "doc_hash",
    "prompt_hash",
    "target_hash",
}
_OPTIONS = {"ignore_case", "ignore_punctuation", "regexes_to_ignore"}
_TASK = re.compile(r"^samples_(.+?)(_\d{4}-\d{2}-\d{2}T.*)?$")


def _error(message: str, path: Path, line: int | None, field: str | None = None) -> Any:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=field)])


def _prompt(arguments: Any, path: Path, line: int) -> tuple[str, Any]:
    """The prompt and the generation options of a ``generate_until`` request."""
    first: Any = None
    if isinstance(arguments, Mapping) and arguments:
        item = next(iter(arguments.values()))
        first = [item.get("arg_0"), item.get("arg_1")] if isinstance(item, Mapping) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        first = arguments[0]
    if not first or not isinstance(first[0], str):
        raise _error("'arguments' holds no prompt", path, line, "arguments")
    return first[0], first[1] if len(first) > 1 else None


def read_lm_eval(path: Path, losses: Losses, *, options: Mapping[str, Any]) -> Imported:
    """Read an lm-eval samples log (see the module's docstring)."""
    for key in sorted(set(options) - _OPTIONS):
        raise _error(f"unknown exact_match option {key!r}; known: {sorted(_OPTIONS)}", path, None)
    match = _TASK.match(path.stem)
    task = match.group(1) if match else path.stem
    samples: dict[str, Sample] = {}
    outputs: dict[str, dict[str, str]] = {}
    recorded: dict[str, dict[str, Any]] = {}
    check = True
    for line, row in jsonl_rows(path):
        if not isinstance(row, Mapping):
            raise _error("a line of a samples log is a JSON object (one document)", path, line)
        metrics = row.get("metrics", [])
        if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
            raise _error("'metrics' must be a list of metric names", path, line, "metrics")
        for key in sorted(set(row) - _KEYS - set(metrics)):
            losses.refuse(key, f"field {key!r} is not carried", str(path), line, key)
        for metric in metrics:
            if metric != "exact_match":
                losses.refuse(
                    f"metric:{metric}",
                    f"metric {metric!r} is not re-scored offline (only exact_match)",
                    str(path),
                    line,
                    "metrics",
                )
                check = check and "exact_match" in metrics
        prompt, generation = _prompt(row.get("arguments"), path, line)
        target = row.get("target")
        answer = row.get("filtered_resps")
        answer = answer[0] if isinstance(answer, list) and len(answer) == 1 else answer
        if not isinstance(answer, str) or not isinstance(target, str):
            raise _error(
                "only generate_until tasks (a text answer and a text target) are imported",
                path,
                line,
                "filtered_resps",
            )
        name = f"{task}-{row.get('doc_id')}"
        build = re.sub(r"[^A-Za-z0-9._-]+", "-", str(row.get("filter", "none")))
        if name not in samples:
            metadata = {
                "lm-eval-doc": row.get("doc"),
                "lm-eval-generation": generation,
                "lm-eval-resps": row.get("resps"),
                **{
                    f"lm-eval-{k.replace('_', '-')}": row[k]
                    for k in sorted(row)
                    if k.endswith("_hash")
                },
            }
            samples[name] = Sample(
                name=name,
                parameters=Parameters([prompt]),
                expected_output=target,
                metadata={k: v for k, v in metadata.items() if v is not None},
            )
        elif samples[name].parameters[0] != prompt or samples[name].expected_output != target:
            raise _error(f"{name} appears twice with different prompts or targets", path, line)
        if name in outputs.setdefault(build, {}):
            raise _error(f"{name} appears twice under filter {build!r}", path, line, "filter")
        outputs[build][name] = answer
        scores = {m: row[m] for m in metrics if m in row}
        recorded.setdefault(name, {})[build] = scores
        if "exact_match" in scores:
            if not isinstance(scores["exact_match"], int | float):
                raise _error("'exact_match' must be a number (0 or 1)", path, line, "exact_match")
            again = lm_eval_exact_match(
                answer,
                target,
                ignore_case=bool(options.get("ignore_case")),
                ignore_punctuation=bool(options.get("ignore_punctuation")),
                regexes_to_ignore=options.get("regexes_to_ignore", ()),
            )
            if float(again) != float(scores["exact_match"]):
                raise _error(
                    f"the recorded exact_match {scores['exact_match']} differs from the "
                    f"re-score {float(again)} with options {dict(options) or 'none'}: give the "
                    "task's exact_match options (ignore_case, ignore_punctuation, "
                    "regexes_to_ignore)",
                    path,
                    line,
                    "exact_match",
                )
    final = [
        Sample(
            name=s.name,
            parameters=s.parameters,
            expected_output=s.expected_output,
            metadata={**s.metadata, "lm-eval-results": recorded[s.name]},
        )
        for s in samples.values()
    ]
    kebab = {k.replace("_", "-"): v for k, v in options.items()}
    return Imported(
        format="lm-eval",
        version="samples-jsonl",
        files=(str(path),),
        sha256=source_hash([path]),
        samples=tuple(final),
        checks=({"lm-eval-exact-match": kebab} if kebab else "lm-eval-exact-match",)
        if check
        else (),
        outputs=outputs,
        lost=losses.used(),
        kept={"task": task},
    )
