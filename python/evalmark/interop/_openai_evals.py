"""OpenAI Evals (the open-source registry): an eval spec YAML naming a basic class
(``Match``, ``Includes``, ``FuzzyMatch``, ``JsonMatch``) with its ``samples.jsonl`` of
``input`` messages and ``ideal`` answers, and optionally a run's record log (``--record_path``
JSONL) whose ``sampling`` events give the answers of one recorded build.

A sample's parameter is its ``input``: the text of a lone user message, else the message list
itself (the suite sends it as JSON, so nothing of the conversation is dropped). ``ideal`` is the
expected output (a list: the expected outputs). The check is the ``openai-evals`` kind with the
spec's class, re-scored with OpenAI Evals' semantics.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark._files.yaml_read import read_yaml_document
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses, jsonl_rows, source_hash
from evalmark.interop._openai_graded import GRADED_ARGS, graded_check, modelgraded_path
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._openai_evals import OPENAI_EVALS_CLASSES

__all__ = ["read_openai_evals"]

_BASE_KEYS = frozenset({"id", "description", "metrics", "disclaimer"})
_ARGS = {"samples_jsonl"}
_CLASS_ARGS = {"Includes": {"ignore_case"}}


def _error(message: str, path: Path, line: int | None = None, record: str | None = None) -> Any:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=record)])


def _pick_eval(doc: Mapping[str, Any], path: Path, name: str | None) -> tuple[str, str]:
    """The base eval's name and the id of the spec it points at."""
    bases = [k for k, v in doc.items() if isinstance(v, Mapping) and "id" in v]
    if name is None:
        if len(bases) != 1:
            raise _error(
                f"the file declares {len(bases)} evals ({', '.join(bases) or 'none'}); "
                "name one with --eval",
                path,
            )
        name = bases[0]
    if name not in bases:
        raise _error(f"no eval named {name!r}; the file declares: {', '.join(bases)}", path)
    return name, str(doc[name]["id"])


def _question(messages: Any, path: Path, line: int) -> Any:
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, list) or not all(
        isinstance(m, Mapping) and isinstance(m.get("content"), str) for m in messages
    ):
        raise _error("'input' must be text or a list of {role, content} messages", path, line)
    if (
        len(messages) == 1
        and messages[0].get("role") == "user"
        and set(messages[0])
        == {
            "role",
            "content",
        }
    ):
        return messages[0]["content"]
    return [dict(m) for m in messages]


def _samples(path: Path, prefix: str, losses: Losses) -> list[Sample]:
    samples: list[Sample] = []
    for number, row in jsonl_rows(path):
        if not isinstance(row, Mapping) or "input" not in row or "ideal" not in row:
            raise _error("a sample needs 'input' and 'ideal'", path, number)
        for key in sorted(set(row) - {"input", "ideal"}):
            losses.refuse(
                f"sample.{key}", f"sample field {key!r} is not carried", str(path), number, key
            )
        ideal = row["ideal"]
        ideals = [ideal] if isinstance(ideal, str) else ideal
        if (
            not isinstance(ideals, list)
            or not ideals
            or not all(isinstance(i, str) for i in ideals)
        ):
            raise _error("'ideal' must be text or a non-empty list of texts", path, number, "ideal")
        samples.append(
            Sample(
                name=f"{prefix}.{len(samples)}",
                parameters=Parameters([_question(row["input"], path, number)]),
                expected_output=ideals[0] if len(ideals) == 1 else None,
                expected_outputs=tuple(ideals) if len(ideals) > 1 else None,
            )
        )
    return samples


def _log_answers(path: Path, names: set[str]) -> tuple[str, dict[str, str]]:
    """The model and answers of a record log's ``sampling`` events (first sampled text)."""
    answers: dict[str, str] = {}
    model = "recorded"
    for number, event in jsonl_rows(path):
        if not isinstance(event, Mapping):
            raise _error("a line of a record log must be a JSON object (an event)", path, number)
        spec = event.get("spec")
        if isinstance(spec, Mapping) and isinstance(spec.get("completion_fns"), list):
            joined = "-".join(str(f) for f in spec["completion_fns"])
            model = re.sub(r"[^A-Za-z0-9._-]+", "-", joined).strip("-") or model
        if event.get("type") != "sampling":
            continue
        sample_id = str(event.get("sample_id"))
        sampled = event.get("data", {}).get("sampled")
        if sample_id not in names:
            raise _error(f"sample {sample_id!r} is not in the eval's samples", path, number)
        if not isinstance(sampled, list) or not sampled or not isinstance(sampled[0], str):
            raise _error("a sampling event needs data.sampled, a list of texts", path, number)
        if len(sampled) > 1:
            raise _error("several completions per sample are not carried", path, number)
        answers[sample_id] = sampled[0]
    return model, answers


def read_openai_evals(
    path: Path,
    losses: Losses,
    *,
    data_dir: str | None,
    eval_name: str | None,
    log: str | None,
    embedding: str | None = None,
) -> Imported:
    """Read an OpenAI Evals registry spec (and optionally a run's record log), or a hosted
    eval's JSON with its run's output items (``log``; ``embedding``: the embedding model of an
    allowed ``cosine`` text similarity)."""
    from evalmark.interop._openai_hosted import is_hosted_eval, read_openai_hosted

    if is_hosted_eval(path):
        return read_openai_hosted(path, losses, log=log, embedding=embedding)
    if embedding is not None:
        raise _error("an embedding model is an option of a hosted eval (JSON) only", path)
    record = read_yaml_document(path.read_bytes(), str(path), ImportFormatError)
    doc = record.value if record is not None else None
    if not isinstance(doc, Mapping):
        raise _error("the file holds no eval spec mapping", path)
    name, spec_id = _pick_eval(doc, path, eval_name)
    line = record.position((spec_id,))[0] if record else None
    spec = doc.get(spec_id)
    if not isinstance(spec, Mapping) or not isinstance(spec.get("class"), str):
        raise _error(f"eval {name!r} points at {spec_id!r}, which has no 'class'", path, line)
    for key in sorted(set(doc[name]) - _BASE_KEYS):
        losses.refuse(f"eval.{key}", f"eval key {key!r} is not carried", str(path), line, name)
    class_name = spec["class"].rsplit(":", 1)[-1]
    graded = class_name == "ModelBasedClassify"
    if class_name not in OPENAI_EVALS_CLASSES and not graded:
        losses.refuse(
            f"class:{class_name}",
            f"eval class {spec['class']!r} cannot be re-scored offline (custom classes and "
            "model-graded classes other than ModelBasedClassify are not carried)",
            str(path),
            line,
            f"{spec_id}.class",
        )
    args = spec.get("args") or {}
    known = _ARGS | _CLASS_ARGS.get(class_name, set()) | (GRADED_ARGS if graded else set())
    for key in sorted(set(args) - known):
        losses.refuse(f"args.{key}", f"eval argument {key!r} is not carried", str(path), line, key)
    if not isinstance(args.get("samples_jsonl"), str):
        raise _error(f"{spec_id}: args.samples_jsonl is missing", path, line)
    folder = Path(data_dir) if data_dir is not None else path.parent
    samples_path = folder / args["samples_jsonl"]
    if not samples_path.is_file():
        raise _error(
            f"samples_jsonl {args['samples_jsonl']!r} not found under {folder}; pass --data-dir",
            path,
            line,
        )
    samples = _samples(samples_path, spec_id, losses)
    files = [path, samples_path]
    outputs: dict[str, dict[str, str]] = {}
    if log is not None:
        files.append(Path(log))
        build, answers = _log_answers(Path(log), {s.name for s in samples})
        outputs[build] = answers
    checks: tuple[Any, ...] = ()
    if graded:
        check = graded_check(path, spec_id, args, losses)
        checks = (check,) if check is not None else ()
        files.insert(2, modelgraded_path(path, spec_id, args))
    elif class_name in OPENAI_EVALS_CLASSES:
        options: dict[str, Any] = {"class": class_name}
        if args.get("ignore_case"):
            options["ignore-case"] = True
        checks = ({"openai-evals": options},)
    return Imported(
        format="openai-evals",
        version="registry",
        files=tuple(str(p) for p in files),
        sha256=source_hash(files),
        samples=tuple(samples),
        checks=checks,
        outputs=outputs,
        lost=losses.used(),
        kept={"eval": name, "id": spec_id, "class": spec["class"], **dict(doc[name])},
    )
