"""``evalmark import FORMAT PATH -o DIR``: write another tool's evaluation as a suite folder
whose recorded outputs ``evalmark run DIR`` replays offline (see :mod:`evalmark.interop`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK

# The formats of evalmark.interop.FORMATS, listed here so that the help stays light (a test
# checks they agree).
FORMATS = ("promptfoo", "openai-evals", "deepeval", "lm-eval", "ragas", "inspect")


def register(subparsers: Any) -> None:
    """Add the ``import`` subcommand."""
    parser = subparsers.add_parser(
        "import",
        help="import another tool's evaluation as a suite that replays offline",
        description="Read another tool's evaluation and write a suite folder: samples.yaml, "
        "suite.yaml with the checks the source declared, source.json (format, version, hash of "
        "the files) and one recorded build per provider, model or filter under builds/, which "
        "`evalmark run` replays offline. What cannot be carried is refused, naming the field "
        "to give to --allow-loss.",
    )
    parser.add_argument("format", choices=FORMATS, help="the source tool's format")
    parser.add_argument(
        "path",
        help="the source file: promptfooconfig.yaml or results JSON, an OpenAI eval spec YAML, "
        "DeepEval goldens (JSON, JSONL, CSV) or test run (.latest_test_run.json), an lm-eval "
        "samples_*.jsonl, Ragas JSONL, an "
        "inspect_ai .json or .eval log",
    )
    parser.add_argument("-o", "--output", required=True, help="the suite folder to write")
    parser.add_argument(
        "--allow-loss",
        action="append",
        default=[],
        metavar="FIELD",
        help="accept losing FIELD (as named by the error that refused it); repeatable",
    )
    parser.add_argument("--name", help="the suite's name (default: the folder's name)")
    parser.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="KIND",
        help="add a check kind to the suite (deepeval and ragas files declare none); repeatable",
    )
    parser.add_argument(
        "--data-dir", help="openai-evals: where samples_jsonl paths start (default: the spec's)"
    )
    parser.add_argument("--eval", dest="eval_name", help="openai-evals: the eval to import")
    parser.add_argument(
        "--log",
        help="openai-evals: a run's record log (JSONL) giving the recorded answers; for a "
        "hosted eval (JSON), the run's output items (JSONL)",
    )
    parser.add_argument(
        "--judge-cassette",
        metavar="FILE",
        help="a recorded judge cassette for the model-graded checks (copied to judge.jsonl)",
    )
    parser.add_argument(
        "--judge-model",
        metavar="MODULE:FACTORY",
        help="the factory of the judge model of the model-graded checks (a .py file or a module)",
    )
    parser.add_argument(
        "--embedding-model",
        metavar="NAME",
        help="openai-evals: the embedding model of an allowed cosine text_similarity "
        "(hash, wordllama:CONFIG; default hash)",
    )
    parser.add_argument(
        "--exact-match-options",
        metavar="JSON",
        help="lm-eval: the task's exact_match options, e.g. '{\"ignore_case\": true}'",
    )
    parser.set_defaults(handler=_run)


def _options(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    import json

    from evalmark.errors import CliError

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CliError(f"--exact-match-options is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CliError("--exact-match-options must be a JSON object")
    return value


def _run(args: argparse.Namespace) -> int:
    from evalmark.errors import CliError
    from evalmark.interop import read, write_suite

    options = _options(args.exact_match_options)
    if args.embedding_model is not None:
        if args.format != "openai-evals":
            raise CliError("--embedding-model is an option of the openai-evals format")
        options = {**(options or {}), "embedding_model": args.embedding_model}
    imported = read(
        args.format,
        args.path,
        allow_loss=args.allow_loss,
        data_dir=args.data_dir,
        eval_name=args.eval_name,
        log=args.log,
        options=options,
    )
    folder = Path(args.output)
    suite = write_suite(
        imported,
        folder,
        name=args.name or folder.resolve().name,
        checks=args.check,
        judge_cassette=args.judge_cassette,
        judge_model=args.judge_model,
    )
    talks = imported.conversations
    recorded = [*imported.outputs, *(b for c in talks for b in c.answers)]
    builds = ", ".join(dict.fromkeys(recorded)) or "none (no recorded outputs)"
    cases = f"{len(talks)} conversations" if talks else f"{len(imported.samples)} samples"
    print(f"imported {cases} from {args.format} into {suite}")
    print(f"builds: {builds}")
    for lost in imported.lost:
        print(f"lost (allowed): {lost}")
    return EXIT_OK
