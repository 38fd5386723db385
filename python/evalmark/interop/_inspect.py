"""inspect_ai eval logs: the ``.json`` log (``--log-format json``) and the ``.eval`` zip
(``header.json`` and one ``samples/ID_epoch_N.json`` member per sample and epoch).

A dataset sample (its ``id``) is an evalmark sample named ``<task>-<id>``: its ``input`` (a
text, or the message list itself) the parameter, its ``target`` the expected output (several
targets: the expected outputs). Each epoch of the log's model is a recorded build (one epoch:
the model's name; several: ``<model>-epoch-N``) whose answer is the sample's
``output.completion``. The ``match`` and ``includes`` scorers become ``inspect-scorer`` checks
and the import re-scores every sample and epoch, refusing when a recorded score differs.
What the run recorded per epoch (scores, messages, output, usage, times, store) is the sample's
metadata ``inspect-results.<build>``; the sample's own metadata ``inspect-metadata``; the
log's ``eval``, ``plan``, ``results`` and ``stats`` are kept verbatim in ``source.json``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.source import gc_paused
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses, as_mapping, source_hash
from evalmark.interop._zip import read_member
from evalmark.samples._case import ToolCall
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._inspect import INSPECT_LOCATIONS, inspect_match

__all__ = ["read_inspect"]

# Per-epoch fields carried in the metadata ``inspect-results.<build>`` (under kebab names).
_PER_EPOCH = (
    "scores",
    "messages",
    "output",
    "model_usage",
    "store",
    "total_time",
    "working_time",
    "uuid",
    "started_at",
    "completed_at",
    "error_retries",
    "limit",
    "role_usage",
    "turn_count",
)
# Fields read elsewhere, or that hold nothing to carry.
_READ = {"id", "epoch", "input", "target", "choices", "metadata", "attachments"}
# Fields that define the sample's environment or record its failure: refused when set.
_REFUSED = {
    "sandbox": "the sample's sandbox is not carried",
    "files": "the files copied into the sample's sandbox are not carried",
    "setup": "the sample's setup script is not carried",
    "events": "the run's event transcript is not carried (its messages, output, scores and "
    "usage are)",
    "error": "the sample failed and has no answer",
}
# The pool the event transcript refers to (inspect 0.3.1xx on): lost with the transcript.
_LOSS_NAMES = {"events_data": "events"}
_KNOWN = _READ | set(_PER_EPOCH)
# The log's own fields kept verbatim in ``source.json`` (the ``.eval`` zip: its header and
# ``reductions.json``; its ``summaries.json`` and ``_journal/`` repeat the samples).
_KEPT_LOG = ("eval", "plan", "results", "stats", "reductions", "tags", "metadata", "invalidated")
_KEBAB = tuple((key, key.replace("_", "-")) for key in _PER_EPOCH)
_SCORERS = {"match": "match", "inspect_ai/match": "match"}
_SCORERS |= {"includes": "includes", "inspect_ai/includes": "includes"}


def _error(message: str, where: str, field: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=where, record=field)])


def _resolve(value: Any, attachments: Mapping[str, Any], where: str) -> Any:
    """``value`` with every ``attachment://HASH`` text replaced by the attachment it names."""
    if isinstance(value, str):
        if value.startswith("attachment://"):
            key = value[len("attachment://") :]
            if key not in attachments:
                raise _error(f"attachment {key!r} is not in the sample's attachments", where)
            return attachments[key]
        return value
    if isinstance(value, list):
        return [_resolve(v, attachments, where) for v in value]
    if isinstance(value, Mapping):
        return {k: _resolve(v, attachments, where) for k, v in value.items()}
    return value


def _read_log(path: Path) -> tuple[str, Mapping[str, Any], list[tuple[str, Any]]]:
    """The log's kind, its header and its samples (each with where it was read)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "header.json" not in names:
                raise _error(
                    "no header.json member: the log is unfinished (the run is still going or "
                    "was stopped); finish it or import a complete log",
                    str(path),
                    "header.json",
                )
            header = dict(as_mapping(_member(archive, "header.json", path)))
            if "reductions" not in header and "reductions.json" in names:
                header["reductions"] = _member(archive, "reductions.json", path)
            members = sorted(
                (n for n in names if n.startswith("samples/") and n.endswith(".json")),
                key=_member_order,
            )
            samples = [(f"{path}:{n}", _member(archive, n, path)) for n in members]
        return "eval", header, samples
    log = _json(path.read_bytes(), str(path))
    if not isinstance(log, Mapping) or "eval" not in log:
        raise _error("not an inspect_ai log: no 'eval' key", str(path), "eval")
    rows = log.get("samples") or []
    if not isinstance(rows, list):
        raise _error("'samples' must be a list", str(path), "samples")
    header = {k: v for k, v in log.items() if k != "samples"}
    return "json", header, [(str(path), row) for row in rows]


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> Any:
    """Member ``name`` of the ``.eval`` zip, decoded from JSON."""
    where = f"{path}:{name}"
    return _json(read_member(archive, name, where), where)


def _member_order(name: str) -> tuple[int, int | str, int]:
    """``samples/ID_epoch_N.json`` ordered by id (numbers as numbers), then epoch."""
    stem = name[len("samples/") : -len(".json")]
    sample_id, _, epoch = stem.rpartition("_epoch_")
    number = int(epoch) if epoch.isdigit() else 0
    if sample_id.isdigit():
        return (0, int(sample_id), number)
    return (1, sample_id, number)


def _json(data: bytes, where: str) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise _error(f"not JSON: {exc}", where) from None


def _completion(output: Mapping[str, Any], where: str) -> str:
    """The answer text: ``output.completion``, else the first choice's text content."""
    if isinstance(output.get("completion"), str):
        return str(output["completion"])
    choices = output.get("choices") or []
    message = as_mapping(as_mapping(choices[0]).get("message")) if choices else {}
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    raise _error("the sample has no output text", where, "output")


def _tool_calls(messages: Any) -> tuple[ToolCall, ...]:
    """The assistant's tool calls, each with the result of the tool message answering it."""
    if not any(type(m) is dict and m.get("tool_calls") for m in messages):
        return ()
    results = {
        m.get("tool_call_id"): m.get("content")
        for m in messages
        if isinstance(m, Mapping) and m.get("role") == "tool"
    }
    calls = []
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                calls.append(
                    ToolCall(
                        name=str(call["function"]),
                        arguments=dict(call.get("arguments") or {}),
                        result=results.get(call.get("id")),
                        id=call.get("id"),
                    )
                )
    return tuple(calls)


def _checks(header: Mapping[str, Any], losses: Losses, where: str) -> dict[str, dict[str, Any]]:
    """The re-scored scorers by their name in the log: their inspect-scorer options."""
    checks: dict[str, dict[str, Any]] = {}
    for entry in as_mapping(header.get("results")).get("scores") or []:
        name, scorer = str(entry.get("name")), str(entry.get("scorer", entry.get("name")))
        params = dict(as_mapping(entry.get("params")))
        kind = _SCORERS.get(scorer)
        if name in checks:
            continue
        if kind is None:
            losses.refuse(
                f"scorer:{scorer}",
                f"scorer {scorer!r} cannot be re-scored offline by evalmark (only match and "
                "includes are; its recorded scores stay in the metadata)",
                where,
                None,
                "results.scores",
            )
            continue
        allowed = {"location", "ignore_case", "numeric"} if kind == "match" else {"ignore_case"}
        unknown = sorted(set(params) - allowed)
        if params.get("numeric"):
            unknown.append("numeric")
        if unknown or params.get("location", "end") not in INSPECT_LOCATIONS:
            losses.refuse(
                f"scorer:{scorer}",
                f"scorer {scorer!r} with {', '.join(unknown) or 'its location'} is not "
                "reproduced (numeric match and other options are not)",
                where,
                None,
                "results.scores",
            )
            continue
        options: dict[str, Any] = {"scorer": kind, "name": f"inspect-{name}"}
        if kind == "match":
            options["location"] = params.get("location", "end")
        options["ignore-case"] = bool(params.get("ignore_case", True))
        checks[name] = options
    return checks


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict (as JSON decodes objects), else an empty one."""
    return value if type(value) is dict else {}


def _verdict(score: Any) -> bool | None:
    value = _dict(score).get("value")
    return {"C": True, "I": False}.get(value) if isinstance(value, str) else None


def read_inspect(path: Path, losses: Losses) -> Imported:
    """Read an inspect_ai ``.json`` or ``.eval`` log (see the module's docstring)."""
    with gc_paused(promote=True):  # many small containers, none cyclic, all kept
        return _read_inspect(path, losses)


def _read_inspect(path: Path, losses: Losses) -> Imported:
    kind, header, rows = _read_log(path)
    if header.get("version") != 2:
        raise _error(
            f"log version {header.get('version')!r} is not read (version 2 is)",
            str(path),
            "version",
        )
    if header.get("status") != "success":
        losses.refuse(
            "status",
            f"the run's status is {header.get('status')!r}, not 'success': its samples may be "
            "incomplete",
            str(path),
            None,
            "status",
        )
    spec = as_mapping(header.get("eval"))
    task = str(spec.get("task") or "inspect").rpartition("/")[2]
    model = str(spec.get("model") or "model").replace("/", "-")
    checks = _checks(header, losses, str(path))
    epochs = max((int(as_mapping(r).get("epoch") or 1) for _, r in rows), default=1)
    firsts: dict[str, tuple[Mapping[str, Any], str, list[str]]] = {}
    outputs: dict[str, dict[str, str]] = {}
    recorded: dict[str, dict[str, Any]] = {}
    calls: dict[str, tuple[ToolCall, ...]] = {}
    for where, row in rows:
        if not isinstance(row, dict) or "id" not in row:
            raise _error("a sample needs an 'id'", where, "id")
        for field in sorted(row.keys() - _KNOWN):
            if row[field] in (None, [], {}, ""):
                continue
            loss = _LOSS_NAMES.get(field, field)
            what = _REFUSED.get(loss, f"sample field {field!r} is not carried")
            losses.refuse(loss, what, where, None, field)
        if row.get("attachments"):  # only a log with attachments refers to them
            row = _resolve(
                {k: v for k, v in row.items() if k != "attachments"},
                as_mapping(row.get("attachments")),
                where,
            )
        name = f"{task}-{row['id']}"
        epoch = int(row.get("epoch") or 1)
        build = model if epochs == 1 else f"{model}-epoch-{epoch}"
        if name not in firsts:
            firsts[name] = (row, where, _targets(row, where))
        answer = _completion(_dict(row.get("output")), where)
        if name in outputs.setdefault(build, {}):
            raise _error(f"sample {row['id']!r} epoch {epoch} appears twice", where, "id")
        outputs[build][name] = answer
        recorded.setdefault(name, {})[build] = {
            kebab: row[key] for key, kebab in _KEBAB if row.get(key) is not None
        }
        calls.setdefault(name, _tool_calls(row.get("messages") or []))
        _parity(checks, name, firsts[name][2], answer, _dict(row.get("scores")), where)
    final = tuple(
        _sample(name, row, where, targets, recorded[name])
        for name, (row, where, targets) in firsts.items()
    )
    extra = {n: {"tool_calls": c} for n, c in calls.items() if c} if epochs == 1 else {}
    kept = {k: header[k] for k in _KEPT_LOG if header.get(k) not in (None, [], {})}
    return Imported(
        format="inspect",
        version=f"{kind} log v2",
        files=(str(path),),
        sha256=source_hash([path]),
        samples=final,
        checks=tuple({"inspect-scorer": options} for options in checks.values()),
        outputs=outputs,
        lost=losses.used(),
        kept=kept,
        extra=extra,
    )


def _targets(row: Mapping[str, Any], where: str) -> list[str]:
    target = row.get("target", "")
    targets = [target] if isinstance(target, str) else target
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise _error("'target' must be a text or a list of texts", where, "target")
    return targets


def _sample(
    name: str, row: Mapping[str, Any], where: str, targets: list[str], results: dict[str, Any]
) -> Sample:
    question = row.get("input")
    if not isinstance(question, (str, list)):
        raise _error("'input' must be a text or a list of messages", where, "input")
    metadata = {
        key: row[field]
        for key, field in (("inspect-metadata", "metadata"), ("inspect-choices", "choices"))
        if row.get(field)
    }
    metadata["inspect-results"] = results
    return Sample(
        name=name,
        parameters=Parameters([question]),
        expected_output=targets[0] if len(targets) == 1 else (None if targets else ""),
        expected_outputs=tuple(targets) if len(targets) > 1 else None,
        metadata=metadata,
    )


def _parity(
    checks: Mapping[str, Mapping[str, Any]],
    name: str,
    targets: list[str],
    answer: str,
    scores: Mapping[str, Any],
    where: str,
) -> None:
    """Refuse when a re-scored scorer disagrees with the score the log recorded."""
    targets = targets or [""]
    for scorer, options in checks.items():
        if scorer not in scores:
            continue
        wanted = _verdict(scores[scorer])
        got = any(
            inspect_match(
                answer,
                target,
                scorer=options["scorer"],
                location=options.get("location", "end"),
                ignore_case=options["ignore-case"],
            )
            for target in targets
        )
        if wanted is None or wanted != got:
            value = _dict(scores[scorer]).get("value")
            raise _error(
                f"sample {name}: the recorded {scorer} score {value!r} differs from the "
                f"re-score {'C' if got else 'I'}; the log's scorer options may not be the ones "
                "it ran with",
                where,
                f"scores.{scorer}",
            )
