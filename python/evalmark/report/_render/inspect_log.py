"""The ``inspect`` report format: an inspect_ai eval log (``.json``, log version 2) of one report,
so inspect's log viewer (``inspect view``) can show an evalmark run.

The log is one task, the report: ``eval`` (the task is the report's name, the model
``evalmark/<build>``, the dataset's sample ids), ``plan`` (one step, the evalmark run),
``results`` (one score per check with its ``accuracy``, the share of cases it passed, and its
``mean`` score), ``stats`` and one sample per case: ``input`` (the sample's text parameter, or
its message list, else its parameters as JSON), ``target`` (the expected output, or the
expected outputs), the conversation (``messages``), the ``output`` and ``scores``: per check,
``C`` when it passed and ``I`` when not (an errored check is ``I`` with the error in the score's
metadata), the answer, the explanation and evalmark's number (``metadata.score``).

A case's input and target live in its sample, not in the report: the renderer is given the
samples the run read (``samples=``, matched by name). A case whose function raised, and a case
the run skipped, carry inspect's sample ``error``. The gate, the report's metadata and the
verdict are kept in ``eval.metadata.evalmark``. ``created`` is ``timestamp`` (``True``: now);
without one it is the Unix epoch, so the same report gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from evalmark.report._render.common import stamp
from evalmark.report._render.html_inputs import samples_by_name

if TYPE_CHECKING:
    from evalmark.report._model import Report
    from evalmark.report._values import SampleRow

__all__ = ["EXTENSION", "render"]

EXTENSION = ".inspect.json"
_EPOCH = "1970-01-01T00:00:00+00:00"


_ROLES = frozenset({"system", "user", "assistant", "tool"})  # inspect's chat message roles


def _is_messages(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(
            isinstance(m, Mapping) and m.get("role") in _ROLES and "content" in m for m in value
        )
    )


def _input(sample: Any) -> str | list[dict[str, Any]]:
    """The sample's input as inspect holds it: a text, or a list of chat messages."""
    parameters = list(getattr(sample, "parameters", None) or ())
    given = getattr(sample, "input", None)
    if given is not None and not parameters:
        parameters = [given]
    if len(parameters) == 1 and isinstance(parameters[0], str):
        return str(parameters[0])
    if len(parameters) == 1 and _is_messages(parameters[0]):
        return [dict(m) for m in parameters[0]]
    return json.dumps(parameters, ensure_ascii=False, sort_keys=True, default=str)


def _target(sample: Any) -> str | list[str]:
    expected = getattr(sample, "expected_output", None)
    if isinstance(expected, str):
        return expected
    many = getattr(sample, "expected_outputs", None)
    if many:
        return [str(item) for item in many]
    return ""


def _messages(question: str | list[dict[str, Any]], answer: str | None) -> list[dict[str, Any]]:
    turns = (
        [{"role": "user", "content": question, "source": "input"}]
        if isinstance(question, str)
        else [{**m, "source": "input"} for m in question]
    )
    if answer is not None:
        turns.append({"role": "assistant", "content": answer, "source": "generate"})
    return turns


def _output(model: str, answer: str | None, usage: Any) -> dict[str, Any]:
    text = answer or ""
    output: dict[str, Any] = {
        "model": model,
        "choices": [
            {
                "message": {"role": "assistant", "content": text, "source": "generate"},
                "stop_reason": "stop" if answer is not None else "unknown",
            }
        ],
        "completion": text,
    }
    tokens = {
        key: getattr(usage, key, None) for key in ("input_tokens", "output_tokens", "total_tokens")
    }
    if all(isinstance(v, int) for v in tokens.values()):
        output["usage"] = tokens
    latency = getattr(usage, "latency_ms", None)
    if isinstance(latency, int | float):
        output["time"] = latency / 1000
    return output


def _error(message: str) -> dict[str, str]:
    return {"message": message, "traceback": "", "traceback_ansi": ""}


def _scores(row: SampleRow) -> dict[str, dict[str, Any]]:
    scores = {}
    for check, result in row.results.items():
        metadata: dict[str, Any] = {"score": result.score, "passed": result.passed}
        if result.error is not None:
            metadata["error"] = {"kind": result.error.kind, "type": result.error.type}
        scores[check] = {
            "value": "C" if result.passed and result.error is None else "I",
            "answer": row.output,
            "explanation": result.explanation,
            "metadata": metadata,
        }
    return scores


def _sample(row: SampleRow, sample: Any, model: str, number: int) -> dict[str, Any]:
    question = _input(sample)
    faults = [r.error for r in row.results.values() if r.error is not None]
    function_fault = next((f for f in faults if f.kind == "function"), None)
    entry: dict[str, Any] = {
        "id": row.name,
        "epoch": 1,
        "input": question,
        "target": _target(sample),
        "messages": _messages(question, row.output),
        "output": _output(model, row.output, row.usage),
        "scores": _scores(row),
        "metadata": {"evalmark-tags": list(row.tags), "evalmark-verdict": row.verdict}
        if row.tags
        else {"evalmark-verdict": row.verdict},
        "store": {},
        "events": [],
        "model_usage": {},
        "uuid": f"evalmark-{number}",
        "attachments": {},
    }
    if function_fault is not None:
        entry["error"] = _error(f"{function_fault.type}: the function under test raised")
    return entry


def _metrics(report: Report, check: str) -> dict[str, dict[str, Any]]:
    tally = report.by_strategy()[check]
    counted = tally.passed + tally.failed + tally.errors
    accuracy = tally.passed / counted if counted else 0.0
    mean = tally.mean
    metrics = {"accuracy": {"name": "accuracy", "value": accuracy, "params": {}}}
    if mean is not None:
        metrics["mean"] = {"name": "mean", "value": mean, "params": {}}
    return metrics


def _gate(report: Report) -> list[dict[str, Any]]:
    return [
        {
            "label": g.label,
            "actual": g.actual,
            "required": g.required,
            "passed": g.passed,
            "detail": g.detail,
        }
        for g in report.gates
    ]


def render(
    report: Report,
    *,
    samples: Iterable[Any] | Mapping[str, Any] | None = None,
    timestamp: bool | str = False,
    indent: int | None = 2,
) -> str:
    """The inspect_ai ``.json`` eval log (version 2) of ``report``; ``samples`` are the run's
    samples (or test cases), which hold each case's input and target (see the module's
    docstring). Raises ``ValueError`` naming the cases ``samples`` lacks."""
    known = samples_by_name(samples)
    missing = [name for name in report.sample_names if name not in known]
    missing += [s.name for s in report.skipped if s.name not in known]
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise ValueError(
            f"the inspect log of report {report.name!r} needs the samples the run read, for each "
            f"case's input and target (samples=...); none given for: {shown}"
        )
    build = report.metadata.get("build")
    model = f"evalmark/{build if isinstance(build, str) and build else 'function'}"
    created = stamp(timestamp) or _EPOCH
    rows = [
        _sample(row, known[row.name], model, number) for number, row in enumerate(report.rows(), 1)
    ]
    for skipped in report.skipped:
        question = _input(known[skipped.name])
        rows.append(
            {
                "id": skipped.name,
                "epoch": 1,
                "input": question,
                "target": _target(known[skipped.name]),
                "messages": _messages(question, None),
                "output": _output(model, None, None),
                "scores": {},
                "metadata": {"evalmark-verdict": "skipped"},
                "store": {},
                "events": [],
                "model_usage": {},
                "uuid": f"evalmark-{len(rows) + 1}",
                "attachments": {},
                "error": _error(f"skipped: {skipped.error}"),
            }
        )
    try:
        from evalmark import __version__ as version
    except ImportError:  # pragma: no cover - the extension is always built with the package
        version = "unknown"
    log = {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": f"evalmark-{report.name}",
            "run_id": f"evalmark-{report.name}",
            "created": created,
            "task": report.name,
            "task_id": report.name,
            "task_version": 0,
            "task_attribs": {},
            "task_args": {},
            "dataset": {
                "name": report.name,
                "samples": len(rows),
                "sample_ids": [row["id"] for row in rows],
                "shuffled": False,
            },
            "model": model,
            "model_args": {},
            "config": {"epochs": 1},
            "packages": {"evalmark": version},
            "metadata": {
                "evalmark": {
                    "passed": all(g.passed for g in report.gates),
                    "gate": _gate(report),
                    "metadata": dict(report.metadata),
                }
            },
        },
        "plan": {
            "name": "plan",
            "steps": [{"solver": "evalmark_run", "params": {}}],
            "config": {},
        },
        "results": {
            "total_samples": len(rows),
            "completed_samples": len(report.sample_names),
            "scores": [
                {
                    "name": check,
                    "scorer": check,
                    "params": {},
                    "metrics": _metrics(report, check),
                }
                for check in report.strategies
            ],
        },
        "stats": {"started_at": created, "completed_at": created, "model_usage": {}},
        "error": None,
        "samples": rows,
    }
    return json.dumps(log, ensure_ascii=False, indent=indent, default=str) + "\n"
