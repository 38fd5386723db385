"""The hosted OpenAI Evals API: an eval object (JSON: ``data_source_config`` and
``testing_criteria``) with the items of a run (``--log``: JSONL of the run's output items,
``eval.run.output_item``, or of the data source's lines ``{"item": ..., "sample": ...}``).

Each item is a sample named ``<eval name>.<datasource_item_id>`` (a data line: its 0-based
index). Its parameter is the conversation the model was sent (``sample.input``: a lone user
message's text, else the message list), or, with no sample, the item itself. The
``string_check`` criteria become ``openai-evals`` checks of class ``string_check:OPERATION``
reading the item field their ``reference`` names (``{{item.FIELD}}``) as the expected output;
the answer is the output item's ``sample.output`` text (a data line: ``sample.output_text``).
The ``text_similarity`` criteria become the checks of
:mod:`evalmark.interop._openai_similarity`, their ``pass_threshold`` the threshold; the
``label_model`` and ``score_model`` criteria ``openai-grader`` checks
(:mod:`evalmark.interop._openai_hosted_graders`). The import re-scores each item (a model
grader: decides its recorded reply) and refuses when a recorded ``passed`` (or score) differs.
The item, the results, status and usage of the run are the sample's metadata ``openai-item``
and ``openai-results.<build>``; the eval's other fields are kept in ``source.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses, as_mapping, jsonl_rows, source_hash
from evalmark.interop._openai_hosted_graders import graded_check, recorded_grade
from evalmark.interop._openai_similarity import (
    COSINE_LOSS,
    METRICS,
    TOLERANCE,
    rescore,
    similarity_check,
)
from evalmark.models._named import EMBEDDING_MODEL_NAMES
from evalmark.samples._sample import Parameters, Sample

__all__ = ["is_hosted_eval", "read_openai_hosted"]

_EVAL_KEYS = frozenset(
    {"object", "id", "name", "data_source_config", "testing_criteria", "created_at", "metadata"}
)
_ITEM_KEYS = frozenset(
    {
        "object",
        "id",
        "run_id",
        "eval_id",
        "created_at",
        "status",
        "datasource_item_id",
        "datasource_item",
        "results",
        "sample",
    }
)
_OPERATIONS = ("eq", "ne", "like", "ilike")
_CHECK_KEYS = frozenset({"type", "name", "id", "input", "reference", "operation"})
_ANSWER = re.compile(r"\{\{\s*sample\.output_text\s*\}\}")
_FIELD = re.compile(r"\{\{\s*item\.([A-Za-z0-9_]+)\s*\}\}")
_SIMILARITY_KEYS = frozenset(
    {"type", "name", "id", "input", "reference", "evaluation_metric", "pass_threshold"}
)


def _error(message: str, path: Path, line: int | None = None, record: str | None = None) -> Any:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=record)])


def is_hosted_eval(path: Path) -> bool:
    """True when ``path`` is a JSON file holding a hosted eval (``testing_criteria``)."""
    if path.suffix.lower() != ".json":
        return False
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, Mapping) and "testing_criteria" in doc


def _checks(
    doc: Mapping[str, Any], path: Path, losses: Losses, embedding: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The checks of the criteria (each with its criterion's name and id) and the item field
    the string checks' and text similarities' references name."""
    checks: list[dict[str, Any]] = []
    field: str | None = None
    criteria = doc.get("testing_criteria")
    if not isinstance(criteria, list):
        raise _error("'testing_criteria' must be a list", path, record="testing_criteria")
    for index, criterion in enumerate(criteria):
        where = f"testing_criteria[{index}]"
        if not isinstance(criterion, Mapping):
            raise _error("a testing criterion must be an object", path, record=where)
        kind = str(criterion.get("type"))
        name = str(criterion.get("name") or criterion.get("id") or f"criterion-{index}")
        slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or f"criterion-{index}"
        if kind == "text_similarity":
            check = _similarity(criterion, where, f"openai-{slug}", path, losses, embedding)
            if check is None:
                continue
        elif kind in ("label_model", "score_model"):
            graded = graded_check(criterion, where, f"openai-{slug}", path, losses)
            if graded is not None:
                checks.append({"check": graded, "criterion": name, "id": criterion.get("id")})
            continue
        elif kind != "string_check":
            what = f"criterion type {kind!r} cannot be re-scored offline by evalmark"
            losses.refuse(f"criterion:{kind}", what, str(path), None, where)
            continue
        else:
            check = _string_check(criterion, where, f"openai-{slug}", path, losses)
        if not _ANSWER.fullmatch(str(criterion.get("input", "")).strip()):
            losses.refuse(
                f"criterion:{name}",
                f"{kind} {name!r} reads {criterion.get('input')!r}, not the model's answer "
                "({{sample.output_text}})",
                str(path),
                None,
                f"{where}.input",
            )
            continue
        found = _FIELD.fullmatch(str(criterion.get("reference", "")).strip())
        if found is None or (field is not None and found.group(1) != field):
            losses.refuse(
                f"criterion:{name}",
                f"{kind} {name!r} compares with {criterion.get('reference')!r}; evalmark "
                "carries one reference, an item field ({{item.FIELD}}) shared by the checks",
                str(path),
                None,
                f"{where}.reference",
            )
            continue
        field = found.group(1)
        checks.append({"check": check, "criterion": name, "id": criterion.get("id")})
    return checks, field


def _options(
    criterion: Mapping[str, Any], keys: frozenset[str], where: str, path: Path, losses: Losses
) -> None:
    kind = criterion.get("type")
    for key in sorted(set(criterion) - keys):
        losses.refuse(
            f"criterion.{key}", f"{kind} option {key!r} is not carried", str(path), None, where
        )


def _string_check(
    criterion: Mapping[str, Any], where: str, name: str, path: Path, losses: Losses
) -> dict[str, Any]:
    """The ``openai-evals`` check of a ``string_check`` criterion."""
    _options(criterion, _CHECK_KEYS, where, path, losses)
    operation = criterion.get("operation")
    if operation not in _OPERATIONS:
        raise _error(
            f"string_check operation {operation!r} is not one of {', '.join(_OPERATIONS)}",
            path,
            record=f"{where}.operation",
        )
    return {"openai-evals": {"class": f"string_check:{operation}", "name": name}}


def _similarity(
    criterion: Mapping[str, Any],
    where: str,
    name: str,
    path: Path,
    losses: Losses,
    embedding: str | None,
) -> dict[str, Any] | None:
    """The check of a ``text_similarity`` criterion; None when a loss was allowed."""
    _options(criterion, _SIMILARITY_KEYS, where, path, losses)
    metric = criterion.get("evaluation_metric")
    if metric not in METRICS:
        raise _error(
            f"text_similarity evaluation_metric {metric!r} is not one of {', '.join(METRICS)}",
            path,
            record=f"{where}.evaluation_metric",
        )
    threshold = criterion.get("pass_threshold")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise _error("text_similarity needs a numeric pass_threshold", path, record=where)
    if not 0.0 <= threshold <= 1.0:
        raise _error(
            f"pass_threshold {threshold} is outside [0, 1], where the metric's scores lie",
            path,
            record=f"{where}.pass_threshold",
        )
    if metric == "cosine":
        losses.refuse("criterion:text_similarity:cosine", COSINE_LOSS, str(path), None, where)
        check = similarity_check("cosine", float(threshold), name)
        if embedding is not None:
            check["semantic-similarity"]["model"] = embedding
        return check
    return similarity_check(str(metric), float(threshold), name)


def _text(messages: Any, where: str, path: Path, line: int) -> str:
    """The text of the model's answer (the assistant messages of ``sample.output``)."""
    if not isinstance(messages, list) or len(messages) != 1:
        raise _error("sample.output must hold one assistant message", path, line, where)
    content = as_mapping(messages[0]).get("content")
    if not isinstance(content, str):
        raise _error("the assistant message's content must be text", path, line, where)
    return content


def _question(item: Mapping[str, Any], sample: Mapping[str, Any]) -> Any:
    messages = sample.get("input")
    if not isinstance(messages, list) or not messages:
        return dict(item)
    if len(messages) == 1 and as_mapping(messages[0]).get("role") == "user":
        content = as_mapping(messages[0]).get("content")
        if isinstance(content, str):
            return content
    return [dict(as_mapping(m)) for m in messages]


def _rows(log: Path, losses: Losses) -> list[tuple[int, str, dict[str, Any], dict[str, Any]]]:
    """Each line's number, item id, output item (or data line) and item."""
    rows: list[tuple[int, str, dict[str, Any], dict[str, Any]]] = []
    for number, row in jsonl_rows(log):
        if not isinstance(row, dict):
            raise _error("a line must be a JSON object", log, number)
        if "datasource_item" in row:
            for key in sorted(set(row) - _ITEM_KEYS):
                what = f"output item field {key!r} is not carried"
                losses.refuse(f"output_item.{key}", what, str(log), number, key)
            item, item_id = row["datasource_item"], row.get("datasource_item_id")
        elif "item" in row:
            for key in sorted(set(row) - {"item", "sample"}):
                what = f"data line field {key!r} is not carried"
                losses.refuse(f"data.{key}", what, str(log), number, key)
            item, item_id = row["item"], len(rows)
        else:
            raise _error(
                "neither an output item (datasource_item) nor a data line (item)", log, number
            )
        if not isinstance(item, dict):
            raise _error("the item must be a JSON object", log, number, "item")
        rows.append((number, str(item_id), row, item))
    return rows


def read_openai_hosted(
    path: Path, losses: Losses, *, log: str | None, embedding: str | None = None
) -> Imported:
    """Read a hosted OpenAI eval (JSON) and a run's output items (see the module docstring)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key in sorted(set(doc) - _EVAL_KEYS):
        losses.refuse(f"eval.{key}", f"eval field {key!r} is not carried", str(path), None, key)
    if not isinstance(doc.get("data_source_config"), Mapping):
        raise _error("'data_source_config' must be an object", path, record="data_source_config")
    if embedding is not None and embedding not in EMBEDDING_MODEL_NAMES:
        raise _error(
            f"embedding model {embedding!r} is not one of {', '.join(EMBEDDING_MODEL_NAMES)}",
            path,
        )
    checks, field = _checks(doc, path, losses, embedding)
    if log is None:
        raise _error(
            "a hosted eval holds no items: pass --log with the run's output items (JSONL) or "
            "the lines of its data file",
            path,
        )
    log_path = Path(log)
    prefix = re.sub(r"[^A-Za-z0-9._-]+", "-", str(doc.get("name") or doc.get("id") or "eval"))
    samples, answers, models = [], {}, set()
    recorded: dict[str, dict[str, Any]] = {}
    for number, item_id, row, item in _rows(log_path, losses):
        name = f"{prefix}.{item_id}"
        sample = as_mapping(row.get("sample"))
        if sample.get("error"):
            what = "the model call failed and the item has no answer"
            losses.refuse("sample.error", what, str(log_path), number, "sample.error")
            continue
        reference = item.get(field) if field is not None else None
        if field is not None and not isinstance(reference, str):
            raise _error(f"item field {field!r} must be text", log_path, number, f"item.{field}")
        if "output" in sample:
            answers[name] = _text(sample["output"], "sample.output", log_path, number)
            models.add(str(sample.get("model") or "recorded"))
        elif isinstance(sample.get("output_text"), str):
            answers[name] = sample["output_text"]
            models.add(str(sample.get("model") or "recorded"))
        recorded[name] = {k: row[k] for k in ("status", "results", "sample") if k in row}
        samples.append((name, item, sample, reference))
        if name in answers:
            _parity(checks, name, answers[name], reference or "", row, log_path, number)
    if len(models) > 1:
        raise _error(
            f"the items were answered by several models: {', '.join(sorted(models))}", log_path
        )
    build = re.sub(r"[^A-Za-z0-9._-]+", "-", next(iter(models), "recorded"))
    final = tuple(
        Sample(
            name=name,
            parameters=Parameters([_question(item, sample)]),
            expected_output=reference if reference is not None else "",
            metadata={"openai-item": item, "openai-results": {build: recorded[name]}},
        )
        for name, item, sample, reference in samples
    )
    kept = {k: doc[k] for k in sorted(doc) if k != "testing_criteria"}
    kept["testing_criteria"] = doc["testing_criteria"]
    files = [path, log_path]
    return Imported(
        format="openai-evals",
        version="hosted",
        files=tuple(str(p) for p in files),
        sha256=source_hash(files),
        samples=final,
        checks=tuple(c["check"] for c in checks),
        outputs={build: answers} if answers else {},
        lost=losses.used(),
        kept=kept,
    )


def _parity(
    checks: list[dict[str, Any]],
    name: str,
    answer: str,
    reference: str,
    row: Mapping[str, Any],
    path: Path,
    line: int,
) -> None:
    """Refuse when a re-scored check disagrees with the result the run recorded (its verdict;
    for a scored check, its score too)."""
    results = [as_mapping(r) for r in row.get("results") or []]
    for check in checks:
        ((kind, options),) = check["check"].items()
        if kind == "semantic-similarity":  # cosine: other vectors, other numbers
            continue
        recorded = next(
            (r for r in results if r.get("name") in (check["criterion"], check["id"])), {}
        )
        wanted, wanted_score = recorded.get("passed"), recorded.get("score")
        if kind == "openai-grader":  # the grader's recorded reply, decided as the check does
            outcome = recorded_grade(options, recorded)
            if outcome is None:
                continue
            (got, score), scored = outcome, options["grader"] == "score_model"
        else:
            got, score = rescore(check["check"], answer, reference)
            scored = "threshold" in options
        if isinstance(wanted, bool) and got != wanted:
            found = f"passed={wanted}", str(got)
        elif (
            scored
            and isinstance(wanted_score, int | float)
            and abs(float(wanted_score) - score) > TOLERANCE
        ):
            found = f"score {wanted_score}", f"{score:.6f}"
        else:
            continue
        raise _error(
            f"item {name}: the run recorded {found[0]} for {check['criterion']!r} but "
            f"the re-score gives {found[1]}; the eval's criteria may not be the ones it ran "
            "with, or evalmark's check does not reproduce this grader here",
            path,
            line,
            "results",
        )
