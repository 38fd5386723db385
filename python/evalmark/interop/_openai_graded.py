"""OpenAI Evals' model-graded class ``ModelBasedClassify``, imported as an ``llm-judge`` check
whose template is the modelgraded spec's ``prompt`` as written.

The spec named by ``args.modelgraded_spec`` is read from the registry's ``modelgraded`` folder
(``<the eval spec's folder>/../modelgraded/<name>.yaml``). Its placeholders become evalmark's
variables: ``{input}`` the question, ``{completion}`` the answer under test, ``{ideal}`` the
expected output; ``choice_strings`` (a text of one-letter choices, or a list) and
``choice_scores`` (a mapping, or ``from_strings``: each choice read as its number) become the
check's choices; ``eval_type`` (``cot_classify``, the default: the choice after the reasoning;
``classify``; ``classify_cot``: the choice first) where the judge gives its choice.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark._files.yaml_read import read_yaml_document
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Losses

__all__ = ["GRADED_ARGS", "graded_check", "modelgraded_path"]

GRADED_ARGS = frozenset({"modelgraded_spec", "eval_type"})
_VARIABLES = {"input": "question", "completion": "response", "ideal": "expected_output"}
_SPEC_KEYS = frozenset({"prompt", "choice_strings", "choice_scores", "input_outputs", "eval_type"})
_EVAL_TYPES = {"cot_classify": "last", "classify": "first", "classify_cot": "first"}


def _error(message: str, path: Path, record: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=str(path), record=record)])


def _template(prompt: str, path: Path, losses: Losses) -> str | None:
    """``prompt`` with its placeholders renamed to evalmark's variables; None when refused."""
    parts = []
    for literal, field, spec, conversion in string.Formatter().parse(prompt):
        parts.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        if field not in _VARIABLES or spec or conversion:
            losses.refuse(
                "modelgraded.prompt",
                f"the modelgraded prompt's placeholder {{{field}}} has no evalmark variable "
                "(only {input}, {completion} and {ideal} are mapped)",
                str(path),
                None,
                "prompt",
            )
            return None
        parts.append("{" + _VARIABLES[field] + "}")
    return "".join(parts)


def _choices(spec: Mapping[str, Any], path: Path) -> tuple[list[str], dict[str, float] | None]:
    raw = spec.get("choice_strings")
    choices = list(raw) if isinstance(raw, str) else raw
    if not isinstance(choices, list) or not choices or not all(isinstance(c, str) for c in choices):
        raise _error("choice_strings must be a text or a list of texts", path, "choice_strings")
    scores = spec.get("choice_scores")
    if scores is None:
        return choices, None
    if scores == "from_strings":
        try:
            return choices, {c: float(c) for c in choices}
        except ValueError:
            raise _error(
                "choice_scores: from_strings needs numeric choices", path, "choice_scores"
            ) from None
    if not isinstance(scores, Mapping) or set(map(str, scores)) != set(choices):
        raise _error(
            "choice_scores must give a number for each choice string", path, "choice_scores"
        )
    return choices, {str(k): float(v) for k, v in scores.items()}


def modelgraded_path(eval_spec: Path, spec_id: str, args: Mapping[str, Any]) -> Path:
    """Where the registry keeps the modelgraded spec ``args.modelgraded_spec`` names."""
    name = args.get("modelgraded_spec")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise _error(f"{spec_id}: args.modelgraded_spec must name a spec", eval_spec)
    return eval_spec.parent.parent / "modelgraded" / f"{name}.yaml"


def graded_check(
    eval_spec: Path, spec_id: str, args: Mapping[str, Any], losses: Losses
) -> dict[str, Any] | None:
    """The ``llm-judge`` check of a ``ModelBasedClassify`` eval; None when a loss was allowed."""
    path = modelgraded_path(eval_spec, spec_id, args)
    name = path.stem
    if not path.is_file():
        raise _error(
            f"modelgraded spec {name!r} not found at {path} (the registry's modelgraded folder, "
            "beside the evals folder)",
            eval_spec,
            "args.modelgraded_spec",
        )
    record = read_yaml_document(path.read_bytes(), str(path), ImportFormatError)
    doc = record.value if record is not None else None
    spec = doc.get(name) if isinstance(doc, Mapping) else None
    if not isinstance(spec, Mapping) or not isinstance(spec.get("prompt"), str):
        raise _error(f"no modelgraded spec {name!r} with a text 'prompt'", path, name)
    for key in sorted(set(spec) - _SPEC_KEYS):
        losses.refuse(
            f"modelgraded.{key}", f"modelgraded key {key!r} is not carried", str(path), None, key
        )
    io = spec.get("input_outputs", {"input": "completion"})
    if io != {"input": "completion"}:
        losses.refuse(
            "modelgraded.input_outputs",
            f"input_outputs {io!r}: only the answer under test graded against its input is",
            str(path),
            None,
            "input_outputs",
        )
        return None
    eval_type = args.get("eval_type", spec.get("eval_type", "cot_classify"))
    if eval_type not in _EVAL_TYPES:
        raise _error(f"eval_type {eval_type!r} is not one of {', '.join(_EVAL_TYPES)}", path)
    template = _template(spec["prompt"], path, losses)
    if template is None:
        return None
    choices, scores = _choices(spec, path)
    options: dict[str, Any] = {
        "template": template,
        "choice-strings": choices,
        "choice-at": _EVAL_TYPES[eval_type],
        "name": f"openai-{name}",
    }
    if scores is not None:
        if not all(0.0 <= v <= 1.0 for v in scores.values()):
            losses.refuse(
                "modelgraded.choice_scores",
                "choice scores outside [0, 1] are not carried (an evalmark score is a fraction)",
                str(path),
                None,
                "choice_scores",
            )
            return None
        options["choice-scores"] = scores
        options["threshold"] = max(scores.values())  # passes on a best-scored choice
    return {"llm-judge": options}
