"""``evalmark judge calibrate LABELS --judge ...``: how far a judge agrees with human labels."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.cli._judge_args import add_judge_arguments
from evalmark.errors import CliError

if TYPE_CHECKING:
    from evalmark.models._values import ChatReply

_JUDGE_HELP = (
    "the judge: 'rule' (RuleJudge; 'rule:0.5' sets its min overlap), 'cassette:PATH' (replay "
    "the judge recorded in a cassette), or 'module:factory' / 'file.py:factory' (a function "
    "returning a chat model; add --cassette to record and replay it)"
)


def register(subparsers: Any) -> None:
    """Add the ``judge`` subcommand and its ``calibrate`` action."""
    parser = subparsers.add_parser(
        "judge",
        help="measure a judge against human labels",
        description=(
            "Measure the judge you use: its accuracy, Cohen's kappa, confusion matrix and\n"
            "true-pass and true-fail rates against items people labelled, and the false-pass\n"
            "and false-fail rates evalmark tune uses to pick a gate threshold (calibrate,\n"
            "which also certifies a judge on held-out items); estimate a check's true pass\n"
            "rate from the judge's verdicts and some labels (estimate); measure a pairwise\n"
            "judge's position, length and self-preference biases (bias)."
        ),
        epilog=(
            "examples:\n"
            "  evalmark judge calibrate golden/judge-calibration/labels.jsonl \\\n"
            "      --judge cassette:golden/judge-calibration/judge.jsonl\n"
            "  evalmark judge calibrate labels.jsonl --judge rule --rates-out out/rates.json\n"
            "  evalmark judge calibrate labels.jsonl --judge judges.py:make_judge \\\n"
            "      --cassette judge.jsonl --record-mode record-missing --suite my-suite\n"
            "  evalmark judge calibrate labels.jsonl --judge rule --min-tpr-lower 0.8 \\\n"
            "      --min-tnr-lower 0.8 --certificate-out judge-certificate.json\n"
            "  evalmark judge estimate out/support.json --check relevancy --labels labels.jsonl\n"
            "  evalmark judge bias golden/judge-bias/pairs.jsonl \\\n"
            "      --judge cassette:golden/judge-bias/judge.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, title="actions")
    calibrate = actions.add_parser(
        "calibrate",
        help="score a judge against labelled items",
        description=(
            "Judge every labelled item (JSON Lines, YAML or JSON: id, prompt, the prompt's "
            "variables, label pass or fail) with a catalog prompt and compare with the labels. "
            "A reply that cannot be read counts as a fail, as a gate would see it. Exit 0, 1 "
            "when --min-kappa is not reached, 2 on a usage or input error."
        ),
    )
    calibrate.add_argument("labels", type=Path, metavar="LABELS", help="the labelled items")
    add_judge_arguments(calibrate, _JUDGE_HELP)
    calibrate.add_argument("--prompt", help="the catalog prompt of items that name none")
    calibrate.add_argument(
        "--score", help="bool, continuous, or choices like 0,0.5,1 (default: each prompt's)"
    )
    calibrate.add_argument(
        "--threshold", type=float, default=0.5, help="pass mark of a numeric score (0.5)"
    )
    calibrate.add_argument(
        "--mode", choices=("auto", "native", "prompted"), default="auto", help="(auto)"
    )
    calibrate.add_argument("--no-reasoning", action="store_true", help="ask for the score only")
    calibrate.add_argument(
        "--errors",
        choices=("fail", "exclude"),
        default="fail",
        help="unreadable replies count as fails (default) or are left out",
    )
    calibrate.add_argument(
        "--rates-out", type=Path, help="write the false-pass and false-fail rates here"
    )
    calibrate.add_argument(
        "--suite",
        type=Path,
        help="write the rates where evalmark tune looks for them: SUITE/.evalmark/judge-rates.json",
    )
    calibrate.add_argument(
        "--min-kappa", type=float, help="exit 1 when Cohen's kappa is below this"
    )
    calibrate.add_argument("--json", action="store_true", help="print JSON instead of text")
    calibrate.set_defaults(handler=_calibrate)
    from evalmark.cli._judge_bias import register_bias
    from evalmark.cli._judge_certify import add_certificate_arguments
    from evalmark.cli._judge_estimate import register_estimate

    add_certificate_arguments(calibrate)

    register_estimate(actions)
    register_bias(actions, _JUDGE_HELP, build_judge)


class _ReplayOnly:
    """The model behind a cassette replayed without a live judge: its id and the parameters
    every recorded call shares (the recorded model's defaults)."""

    def __init__(self, model_id: str, cassette: Path, defaults: Mapping[str, Any]) -> None:
        self.model_id = model_id
        self.cassette = cassette
        self._defaults = dict(defaults)

    @property
    def default_params(self) -> Mapping[str, Any]:
        """The parameters the recorded requests all carry."""
        return dict(self._defaults)

    def chat(self, messages: Any, **params: Any) -> ChatReply:
        """Never called in replay; say how to record instead."""
        raise CliError(
            f"{self.cassette} is replayed without a live judge; to record what it lacks, pass "
            "--judge module:factory --cassette with --record-mode record-missing"
        )

    async def achat(self, messages: Any, **params: Any) -> ChatReply:
        """As :meth:`chat`."""
        return self.chat(messages, **params)


def replay_only(path: Path, model_id: str | None = None) -> _ReplayOnly:
    """A stand-in for the judge recorded in the cassette ``path`` (its only chat model unless
    ``model_id`` names one), to replay it without the live model."""
    from evalmark.models._cassette_file import read_cassette

    if not path.exists():
        raise CliError(f"--judge cassette:{path}: no such file")
    entries = [e for e in read_cassette(path).entries if e.kind == "chat"]
    models = sorted({str(e.request.get("model")) for e in entries})
    if model_id is None:
        if len(models) != 1:
            found = ", ".join(models) or "none"
            raise CliError(f"{path} records chat models {found}: pass --model-id to choose one")
        model_id = models[0]
    params = [e.request.get("params") or {} for e in entries if e.request.get("model") == model_id]
    shared = dict(params[0]) if params else {}
    for other in params[1:]:
        shared = {k: v for k, v in shared.items() if k in other and other[k] == v}
    return _ReplayOnly(model_id, path, shared)


def build_judge(args: argparse.Namespace) -> Any:
    """The chat model ``--judge`` names (see its help)."""
    from evalmark.models import RuleJudge, record_replay

    spec: str = args.judge
    if spec == "rule" or spec.startswith("rule:"):
        overlap = spec.partition(":")[2]
        try:
            return RuleJudge(float(overlap)) if overlap else RuleJudge()
        except ValueError as exc:
            raise CliError(f"--judge {spec}: {exc}") from None
    if spec.startswith("cassette:") or (spec.endswith(".jsonl") and ":" not in spec):
        path = Path(spec.removeprefix("cassette:"))
        return record_replay(replay_only(path, args.model_id), path, mode="replay")
    if ":" not in spec:
        raise CliError(f"--judge {spec!r}: {_JUDGE_HELP}")
    from evalmark.suite._application import import_callable

    factory = import_callable(spec, Path.cwd())
    model = factory()
    if not callable(getattr(model, "chat", None)):
        raise CliError(f"--judge {spec}: the factory returned {model!r}, not a chat model")
    if args.cassette is not None:
        return record_replay(model, args.cassette, args.record_mode, model_id=args.model_id)
    return model


def _score_options(text: str | None) -> dict[str, Any]:
    from evalmark.models._structured.shape import score_options

    try:
        return score_options(text)
    except ValueError as exc:
        raise CliError(f"--score {exc}") from None


def _rate(label: str, r: Any) -> str:
    if r.trials == 0:
        return f"{label:<15} n/a (no items)"
    return (
        f"{label:<15} {r.value:.3f} ({r.hits}/{r.trials}, 95% Wilson interval "
        f"{r.low:.3f}–{r.high:.3f})"
    )


def _text(result: Any) -> str:
    a = result.agreement
    (tp, ff), (fp, tn) = a.matrix
    prompts = sorted({i.prompt for i in result.items})
    head = (
        f"judge {result.judge} on {result.source}: {len(result.items)} labelled items, "
        f"prompts {', '.join(prompts)}"
    )
    if result.errors:
        what = "counted as fail" if result.error_policy == "fail" else "left out"
        head += f"; {result.errors} unusable {'reply' if result.errors == 1 else 'replies'} {what}"
    kappa = "n/a" if a.kappa is None else f"{a.kappa:.3f}"
    fp_errors, fp_trials = result.false_pass
    ff_errors, ff_trials = result.false_fail
    lines = [
        head,
        "",
        "              judge pass  judge fail",
        f"label pass    {tp:>10}  {ff:>10}",
        f"label fail    {fp:>10}  {tn:>10}",
        "",
        f"accuracy        {a.accuracy:.3f}",
        f"Cohen's kappa   {kappa}",
        _rate("true-pass rate", result.true_pass),
        _rate("true-fail rate", result.true_fail),
        f"false-pass rate {fp_errors}/{fp_trials}   false-fail rate {ff_errors}/{ff_trials}",
    ]
    wrong = result.disagreements()
    if wrong:
        lines += ["", f"disagreements ({len(wrong)}):"]
        for item in wrong:
            said = "no verdict" if item.verdict is None else ("pass" if item.verdict else "fail")
            why = item.error or item.reasoning
            flat = " ".join(why.split())
            flat = flat if len(flat) <= 110 else flat[:109] + "…"
            lines.append(
                f"  {item.id} [{item.prompt}] label {'pass' if item.label else 'fail'}, "
                f"judge {said}: {flat}"
            )
    return "\n".join(lines)


def _calibrate(args: argparse.Namespace) -> int:
    from evalmark.calibration import calibrate, load_labels
    from evalmark.calibration._run import RATES_FILE
    from evalmark.cli import _judge_certify as certify
    from evalmark.noise import write_rates

    labels = load_labels(args.labels, prompt=args.prompt)
    if not 0.0 <= args.threshold <= 1.0:
        raise CliError(f"--threshold must be between 0 and 1, got {args.threshold}")
    examples: dict[str, Any] = {}
    pool = 0
    if certify.wanted(args):
        labels, examples, pool = certify.held_out_split(args, labels)
    judge = build_judge(args)
    result = calibrate(
        labels,
        judge,
        reasoning=not args.no_reasoning,
        mode=args.mode,
        threshold=args.threshold,
        errors=args.errors,
        few_shot=examples,
        **_score_options(args.score),
    )
    targets = [p for p in (args.rates_out, args.suite / RATES_FILE if args.suite else None) if p]
    written = [write_rates(target, result.judge_rates()) for target in targets]
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(_text(result))
        for path in written:
            print(f"rates written to {path} (evalmark tune reads them)")
    if certify.wanted(args):
        document = certify.certify(args, result, labels, examples, pool)
        if args.certificate_out is not None:
            from evalmark.calibration._certificate import write_certificate

            write_certificate(args.certificate_out, document)
        print(certify.certificate_text(document), file=sys.stdout if not args.json else sys.stderr)
        if not document["certified"]:
            return EXIT_GATE_FAILED
    if args.min_kappa is not None:
        kappa = result.agreement.kappa
        if kappa is None or kappa < args.min_kappa:
            shown = "undefined" if kappa is None else f"{kappa:.3f}"
            print(
                f"evalmark judge calibrate: Cohen's kappa {shown} is below --min-kappa "
                f"{args.min_kappa:g}",
                file=sys.stderr,
            )
            return EXIT_GATE_FAILED
    return EXIT_OK
