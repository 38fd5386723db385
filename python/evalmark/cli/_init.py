"""``evalmark init [FOLDER]``: write a starter suite that passes offline at once."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK


def register(subparsers: Any) -> None:
    """Add the ``init`` subcommand."""
    parser = subparsers.add_parser(
        "init",
        help="write a starter suite (samples, suite file, pytest test, cassette folder)",
        description=(
            "Write a starter suite into FOLDER: samples.yaml, suite.yaml, app.py (the "
            "application under test, to replace with yours), tests/test_app.py and cassettes/. "
            "It passes offline at once: run `evalmark run FOLDER` or `pytest FOLDER/tests`."
        ),
    )
    parser.add_argument(
        "folder", nargs="?", default=".", type=Path, help="where to write (default: here)"
    )
    parser.add_argument("--force", action="store_true", help="overwrite files of the same names")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from evalmark.suite._starter import write_starter

    written = write_starter(args.folder, force=args.force)
    for path in written:
        print(f"wrote {path}")
    folder = args.folder
    print(f"\nnext: evalmark run {folder}   (or: pytest {folder / 'tests'})")
    return EXIT_OK
