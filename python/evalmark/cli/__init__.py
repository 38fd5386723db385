"""The ``evalmark`` command: a thin shell over the Python API.

Each subcommand lives in its own module of this package and exposes
``register(subparsers) -> None``; the module names are listed in ``_COMMANDS``.
Exit codes: 0 success, 1 a gate or check failed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from evalmark.errors import CliError, EvalmarkError, ExtensionNotBuiltError

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2

# Subcommand modules, in the order `evalmark --help` lists them.
_COMMANDS: tuple[str, ...] = (
    "init",
    "run",
    "report",
    "history",
    "score",
    "tune",
    "compare",
    "cassette",
    "schema",
    "code",
    "prompts",
    "judge",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="evalmark",
        description="Offline-first, deterministic evaluation for LLM applications.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        module = importlib.import_module(f"evalmark.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    try:
        parser = build_parser()
    except ExtensionNotBuiltError as exc:  # a source tree never built: one line on how to
        print(f"evalmark: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    if args.version:
        from evalmark import __version__

        print(f"evalmark {__version__}")
        return EXIT_OK
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        code: int = args.handler(args)
    except CliError as exc:
        print(f"evalmark {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (EvalmarkError, ValueError, OSError) as exc:  # typed input errors: one line, exit 2
        print(f"evalmark {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
