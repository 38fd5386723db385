"""``evalmark label build ITEMS -o labels.html``: a blind labelling page for people to label
items pass or fail in a browser (:mod:`evalmark.calibration._label_page`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``label`` subcommand and its ``build`` action."""
    parser = subparsers.add_parser(
        "label",
        help="write a blind labelling page for people to label items",
        description="Label items by hand for judge calibration and estimates.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, title="actions")
    build = actions.add_parser(
        "build",
        help="write the labelling page of a file of items",
        description=(
            "Write one self-contained HTML page (no network, one hashed inline script) that "
            "shows each item (id, prompt, the prompt's variables; a calibration set's file "
            "reads as it is) without any label or judge verdict, the items the judge was "
            "least sure of (judge_score near 0.5) first, in a seeded order. Labels are kept in "
            "the browser and exported as labels.jsonl, which evalmark judge calibrate and "
            "evalmark judge estimate read. Exit 0, 2 on a usage or input error."
        ),
        epilog=(
            "example:\n"
            "  evalmark label build golden/judge-calibration/labels.jsonl -o out/labels.html"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument("items", type=Path, metavar="ITEMS", help="the items to label")
    build.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE.html", help="the page to write"
    )
    build.add_argument("--seed", type=int, default=0, help="the order's seed (0)")
    build.set_defaults(handler=_build)


def _build(args: argparse.Namespace) -> int:
    from evalmark.calibration._label_page import write_label_page

    path = write_label_page(args.items, args.output, args.seed)
    print(f"labelling page written to {path}; open it in a browser, label, export labels.jsonl")
    return EXIT_OK
