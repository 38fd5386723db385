"""A judge certificate: proof that a judge reached minimum true-pass and true-fail rates on
labelled items it never saw as examples.

The labelled items are split, by a seeded hash of their ids, into a *held-out* share (measured)
and the rest (the pool the judge's few-shot examples may be drawn from). A held-out item is
never an example: :func:`split_items` keeps the two apart, and :func:`check_disjoint` refuses a
held-out item whose content equals an example's under another id. The judge is certified when
the Wilson lower bounds of both rates on the held-out items reach the limits.

The certificate file records the rates and their bounds, the limits, the split (seed, share,
count and a SHA-256 over the held-out items' ids and content), a checksum per judge prompt (of
its system and user text), a checksum of the few-shot examples and the judge's model id. A
suite that requires it (``judge-certificate:``) refuses to run when the certificate failed,
when its judge has another model id, or when a judged check's prompt is not covered or its
text changed (:func:`certificate_problems`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark.calibration._labels import LabelledItem
from evalmark.errors import CalibrationError
from evalmark.models._prompts.catalog import get_prompt

__all__ = [
    "CERTIFICATE_FORMAT",
    "Certificate",
    "certificate_problems",
    "check_disjoint",
    "few_shot_examples",
    "prompt_checksum",
    "read_certificate",
    "split_items",
    "write_certificate",
]

CERTIFICATE_FORMAT = "evalmark-judge-certificate"


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_checksum(name: str) -> str:
    """SHA-256 of a judge prompt's system and user text (a ``KeyError`` for an unknown name)."""
    prompt = get_prompt(name)
    return _digest({"system": prompt.system, "text": prompt.text})


def _share(seed: int, ident: str) -> float:
    digest = hashlib.sha256(f"{seed}:{ident}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def split_items(
    items: Sequence[LabelledItem], holdout: float, seed: int
) -> tuple[list[LabelledItem], list[LabelledItem]]:
    """``(pool, held_out)``: each item is held out when the hash of ``seed`` and its id falls
    below ``holdout`` (1.0 holds out every item), both in file order."""
    if not 0.0 < holdout <= 1.0:
        raise ValueError(f"holdout must be a share in (0, 1], got {holdout!r}")
    held = [item for item in items if _share(seed, item.id) < holdout]
    pool = [item for item in items if _share(seed, item.id) >= holdout]
    return pool, held


def few_shot_examples(
    pool: Sequence[LabelledItem], per_prompt: int, seed: int
) -> dict[str, list[dict[str, Any]]]:
    """Up to ``per_prompt`` worked examples per prompt from ``pool`` (seeded hash order): the
    item's variables, its label as the score and its note as the reasoning."""
    chosen: dict[str, list[dict[str, Any]]] = {}
    for item in sorted(pool, key=lambda i: _share(seed + 1, i.id)):
        examples = chosen.setdefault(item.prompt, [])
        if len(examples) < per_prompt:
            examples.append({**item.values, "score": item.label, "reasoning": item.note})
    return {prompt: examples for prompt, examples in chosen.items() if examples}


def _content(item: LabelledItem) -> str:
    return _digest({"prompt": item.prompt, "values": dict(item.values)})


def check_disjoint(
    held_out: Sequence[LabelledItem], examples: Mapping[str, Sequence[Mapping[str, Any]]]
) -> None:
    """A ``CalibrationError`` when a held-out item has the content of a few-shot example."""
    shown = {
        _digest(
            {
                "prompt": prompt,
                "values": {k: v for k, v in ex.items() if k not in ("score", "reasoning")},
            }
        )
        for prompt, rows in examples.items()
        for ex in rows
    }
    leaked = [item.id for item in held_out if _content(item) in shown]
    if leaked:
        raise CalibrationError(
            f"held-out items {', '.join(leaked)} are also few-shot examples (the same content "
            "under another id): remove the duplicates from the labels"
        )


def split_hash(held_out: Sequence[LabelledItem]) -> str:
    """SHA-256 over the held-out items' ids, labels and content, in id order."""
    rows = sorted((item.id, item.label, _content(item)) for item in held_out)
    return _digest(rows)


@dataclass(frozen=True, slots=True)
class Certificate:
    """A certificate as written and read: see the module docstring."""

    certified: bool
    model_id: str
    prompts: Mapping[str, str]
    document: Mapping[str, Any]
    path: str = ""


def write_certificate(path: str | os.PathLike[str], document: Mapping[str, Any]) -> Path:
    """Write a certificate document (atomically)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(dict(document), indent=2, ensure_ascii=False) + "\n"
    write_atomically(target, text.encode("utf-8"))
    return target


def read_certificate(path: str | os.PathLike[str]) -> Certificate:
    """Read a certificate; a ``CalibrationError`` naming the file and the field when it is not
    one."""
    where = str(path)
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{where}: no such judge certificate") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CalibrationError(f"{where}: not a judge certificate ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != CERTIFICATE_FORMAT:
        raise CalibrationError(
            f'{where}: not a judge certificate; expected "format": "{CERTIFICATE_FORMAT}" '
            "(write one with evalmark judge calibrate --certificate-out)"
        )
    certified, model_id, prompts = (
        document.get("certified"),
        document.get("model_id"),
        document.get("prompts"),
    )
    if not isinstance(certified, bool):
        raise CalibrationError(f"{where}: field certified: expected true or false")
    if not isinstance(model_id, str):
        raise CalibrationError(f"{where}: field model_id: expected the judge's model id")
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise CalibrationError(f"{where}: field prompts: expected prompt names and checksums")
    return Certificate(certified, model_id, prompts, document, where)


def certificate_problems(
    certificate: Certificate, model_id: str, prompts: Sequence[str]
) -> list[str]:
    """Why ``certificate`` does not cover a judge ``model_id`` grading with ``prompts``
    (empty when it does)."""
    problems = []
    if not certificate.certified:
        problems.append("the judge failed its certification")
    if certificate.model_id != model_id:
        problems.append(
            f"it certifies model {certificate.model_id!r}, the suite's judge is {model_id!r}"
        )
    for name in prompts:
        if name not in certificate.prompts:
            problems.append(f"it does not cover the prompt {name!r}")
            continue
        try:
            current = prompt_checksum(name)
        except KeyError:
            problems.append(f"the prompt {name!r} is no judge prompt evalmark knows")
            continue
        if current != certificate.prompts[name]:
            problems.append(f"the prompt {name!r} changed since it was certified")
    return problems
