"""``evalmark judge calibrate ... --min-tpr-lower 0.8 --min-tnr-lower 0.8``: certify a judge on
held-out labelled items (:mod:`evalmark.calibration._certificate`)."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from evalmark.errors import CliError

__all__ = ["add_certificate_arguments", "certificate_text", "certify", "held_out_split"]


def add_certificate_arguments(parser: argparse.ArgumentParser) -> None:
    """The certificate's options of ``judge calibrate``."""
    group = parser.add_argument_group(
        "certificate",
        "certify the judge when the 95% Wilson lower bounds of its true-pass and true-fail "
        "rates, measured on held-out items never used as few-shot examples, reach the limits "
        "(exit 1 otherwise)",
    )
    group.add_argument("--min-tpr-lower", type=float, metavar="RATE", help="e.g. 0.8")
    group.add_argument("--min-tnr-lower", type=float, metavar="RATE", help="e.g. 0.8")
    group.add_argument(
        "--holdout",
        type=float,
        default=1.0,
        metavar="SHARE",
        help="the share of items held out for measuring, by a seeded hash of the ids (1.0: all)",
    )
    group.add_argument("--split-seed", type=int, default=0, metavar="N", help="(0)")
    group.add_argument(
        "--few-shot-per-prompt",
        type=int,
        default=0,
        metavar="K",
        help="give the judge K worked examples per prompt, from the items not held out",
    )
    group.add_argument(
        "--certificate-out", type=Path, metavar="FILE", help="write the certificate here"
    )


def wanted(args: argparse.Namespace) -> bool:
    """True when the command line asks for a split or a certificate."""
    return (
        args.min_tpr_lower is not None
        or args.min_tnr_lower is not None
        or args.certificate_out is not None
        or args.holdout != 1.0
        or args.few_shot_per_prompt != 0
    )


def held_out_split(args: argparse.Namespace, labels: Any) -> tuple[Any, dict[str, Any], int]:
    """``(held-out set, few-shot examples, pool size)`` for the options given."""
    from evalmark.calibration._certificate import check_disjoint, few_shot_examples, split_items
    from evalmark.calibration._labels import CalibrationSet

    for name in ("min_tpr_lower", "min_tnr_lower"):
        value = getattr(args, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise CliError(f"--{name.replace('_', '-')} must be between 0 and 1, got {value}")
    if args.few_shot_per_prompt < 0:
        raise CliError(f"--few-shot-per-prompt must be 0 or more, got {args.few_shot_per_prompt}")
    try:
        pool, held = split_items(labels.items, args.holdout, args.split_seed)
    except ValueError as exc:
        raise CliError(f"--holdout: {exc}") from None
    if not held:
        raise CliError("no item is held out: raise --holdout or change --split-seed")
    examples = few_shot_examples(pool, args.few_shot_per_prompt, args.split_seed)
    check_disjoint(held, examples)
    prompts = tuple(dict.fromkeys(item.prompt for item in held))
    return CalibrationSet(tuple(held), labels.source, prompts), examples, len(pool)


def _rate(r: Any) -> dict[str, Any]:
    return {"hits": r.hits, "trials": r.trials, "rate": r.value, "low": r.low, "high": r.high}


def certify(
    args: argparse.Namespace, result: Any, held: Any, examples: dict[str, Any], pool: int
) -> dict[str, Any]:
    """The certificate document of ``result`` measured on ``held``."""
    from evalmark.calibration._certificate import CERTIFICATE_FORMAT, prompt_checksum, split_hash

    limits = {
        "min_tpr_lower": args.min_tpr_lower or 0.0,
        "min_tnr_lower": args.min_tnr_lower or 0.0,
    }
    lows = (result.true_pass.low, result.true_fail.low)
    certified = (
        lows[0] is not None
        and lows[1] is not None
        and lows[0] >= limits["min_tpr_lower"]
        and lows[1] >= limits["min_tnr_lower"]
    )
    shots = json.dumps(examples, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return {
        "format": CERTIFICATE_FORMAT,
        "version": 1,
        "certified": certified,
        "model_id": result.judge,
        "source": str(held.source),
        "limits": limits,
        "confidence": 0.95,
        "true_pass": _rate(result.true_pass),
        "true_fail": _rate(result.true_fail),
        "split": {
            "seed": args.split_seed,
            "holdout": args.holdout,
            "held_out": len(held),
            "pool": pool,
            "sha256": split_hash(held.items),
        },
        "prompts": {name: prompt_checksum(name) for name in sorted(held.prompts)},
        "few_shot": {
            "per_prompt": args.few_shot_per_prompt,
            "sha256": hashlib.sha256(shots).hexdigest(),
        },
    }


def certificate_text(document: dict[str, Any]) -> str:
    """One line on the verdict, with the bounds against the limits."""
    tp, tf, limits = document["true_pass"], document["true_fail"], document["limits"]

    def bound(r: dict[str, Any], limit: float) -> str:
        low = "n/a" if r["low"] is None else f"{r['low']:.3f}"
        sign = "≥" if r["low"] is not None and r["low"] >= limit else "<"
        return f"{low} {sign} {limit:g}"

    verdict = "CERTIFIED" if document["certified"] else "NOT certified"
    return (
        f"certificate: {verdict}: true-pass lower bound {bound(tp, limits['min_tpr_lower'])}, "
        f"true-fail lower bound {bound(tf, limits['min_tnr_lower'])} on "
        f"{document['split']['held_out']} held-out items"
    )
