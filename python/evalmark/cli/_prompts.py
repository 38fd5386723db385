"""``evalmark prompts ls|show``: the judge prompt catalog."""

from __future__ import annotations

import argparse
import json
from typing import Any

from evalmark.cli import EXIT_OK
from evalmark.errors import CliError


def register(subparsers: Any) -> None:
    """Add the ``prompts`` subcommand and its ``ls`` and ``show`` actions."""
    parser = subparsers.add_parser(
        "prompts",
        help="list and read the judge prompts of the catalog",
        description=(
            "evalmark's judge prompts, grouped as quality, rag, safety, security, trajectory\n"
            "and conversation. Judge with one through LLMJudge, or in a suite file with\n"
            "'- llm-judge: {prompt: NAME}'."
        ),
        epilog=(
            "examples:\n"
            "  evalmark prompts ls\n"
            "  evalmark prompts ls --group security\n"
            "  evalmark prompts show conciseness\n"
            "  evalmark prompts show conciseness --render --score continuous"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, title="actions")
    ls = actions.add_parser(
        "ls",
        help="list the prompts",
        description="One line per prompt: name, group, variables, score shape, what it grades.",
    )
    ls.add_argument("--group", help="only this group (quality, rag, safety, ...)")
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ls.set_defaults(handler=_ls)
    show = actions.add_parser(
        "show",
        help="show one prompt",
        description=(
            "What a prompt grades, its variables and score shape, and its text. With --render, "
            "the messages sent to a judge, with placeholders in place of the values."
        ),
    )
    show.add_argument("name", help="the prompt's name (see evalmark prompts ls)")
    show.add_argument("--raw", action="store_true", help="print the prompt file as it is")
    show.add_argument("--render", action="store_true", help="print the messages a judge receives")
    show.add_argument(
        "--score", default=None, help="with --render: bool, continuous, or choices like 0,0.5,1"
    )
    show.add_argument(
        "--mode",
        choices=("prompted", "native"),
        default="prompted",
        help="with --render: write the reply's schema into the prompt (prompted) or not",
    )
    show.set_defaults(handler=_show)


def _prompt(name: str) -> Any:
    from evalmark.models._prompts import get_prompt

    try:
        return get_prompt(name)
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def _ls(args: argparse.Namespace) -> int:
    from evalmark.models._prompts import CATALOG, GROUPS

    if args.group is not None and args.group not in GROUPS:
        raise CliError(f"no group {args.group!r}; the groups are {', '.join(GROUPS)}")
    prompts = [
        p
        for p in sorted(CATALOG.values(), key=lambda p: (GROUPS.index(p.group), p.name))
        if args.group is None or p.group == args.group
    ]
    if args.json:
        rows = [
            {
                "name": p.name,
                "group": p.group,
                "summary": p.summary,
                "variables": list(p.variable_names),
                "required": list(p.required),
                "score": "schema" if p.schema is not None else p.score,
            }
            for p in prompts
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
    width = max(len(p.name) for p in prompts)
    for group in GROUPS:
        members = [p for p in prompts if p.group == group]
        if not members:
            continue
        print(f"{group}:")
        for p in members:
            variables = ", ".join(v.name + ("?" if v.optional else "") for v in p.variables)
            shape = "schema" if p.schema is not None else p.score
            shape = p.reply if p.reply in ("verdict", "grade") else shape
            print(f"  {p.name:<{width}}  {shape:<10}  {p.summary}  [{variables}]")
    print(f"{len(prompts)} prompts; '?' marks an optional variable. evalmark prompts show NAME")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    prompt = _prompt(args.name)
    if args.raw:
        print(prompt.text, end="")
        return EXIT_OK
    if args.render:
        from evalmark.models._structured.shape import score_options

        try:
            spec = prompt.response(**score_options(args.score))
        except ValueError as exc:
            raise CliError(f"--score: {exc}") from None
        values = {v.name: f"<{v.name}>" for v in prompt.variables}
        for message in prompt.render(values, shape=spec, mode=args.mode):
            print(f"--- {message['role']} ---")
            print(message["content"])
        return EXIT_OK
    print(prompt.describe())
    print(f"source: {prompt.source}")
    print()
    print(f"system: {prompt.system}")
    print()
    print(prompt.body, end="")
    return EXIT_OK
