"""The judge arguments the ``evalmark judge`` commands share: which judge, and its cassette."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_judge_arguments(parser: argparse.ArgumentParser, judge_help: str) -> None:
    """``--judge SPEC`` (required), ``--cassette``, ``--record-mode`` and ``--model-id``."""
    parser.add_argument("--judge", required=True, metavar="SPEC", help=judge_help)
    parser.add_argument("--cassette", type=Path, help="record and replay a live judge here")
    parser.add_argument(
        "--record-mode",
        choices=("replay", "record-missing", "rewrite", "off"),
        help="the cassette's mode (default: EVALMARK_RECORD_MODE, else replay)",
    )
    parser.add_argument("--model-id", help="the judge's model id in the cassette")
