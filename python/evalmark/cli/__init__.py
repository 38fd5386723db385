"""The ``evalmark`` command: a thin shell over the Python API.

Each subcommand lives in its own module of this package and exposes
``register(subparsers) -> None``; the module names are listed in ``_COMMANDS``.
Exit codes: 0 success, 1 a gate or check failed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Collection, Sequence

from evalmark.errors import CliError, EvalmarkError, ExtensionNotBuiltError

__all__ = ["main"]

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT

# Subcommand modules, in the order `evalmark --help` lists them, with the one-line summary that
# list shows. Only the module of the command being run is imported (a test checks that each
# summary is the one its module registers).
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
    "label",
    "traces",
    "import",
)
_SUMMARIES: dict[str, str] = {
    "init": "write a starter suite (samples, suite file, pytest test, cassette folder)",
    "run": "run an evaluation suite and apply its gate",
    "report": "compare two JSON reports, or render one in another format",
    "history": "list, compare and chart past runs; find flaky cases",
    "score": "score a JSONL, CSV or Parquet file of (expected, actual) pairs",
    "tune": "pick a gate threshold that survives judge noise",
    "compare": "tell whether build B is better or worse than build A beyond noise",
    "cassette": "list, check or trim cassettes (recorded model calls)",
    "schema": "print the JSON Schema of samples, testcases, conversations or suite files",
    "code": "score generated code in a sandbox (pass@k)",
    "prompts": "list and read the judge prompts of the catalog",
    "judge": "measure a judge against human labels",
    "label": "write a blind labelling page for people to label items",
    "traces": "check recorded agent traces (OTLP) and write verdicts back as spans",
    "import": "import another tool's evaluation as a suite that replays offline",
}


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser. Every subcommand in ``load`` (default: all) is imported and
    registered in full; the others are listed by name and summary only, so that
    ``evalmark --help`` and ``evalmark score ...`` import no other command's module."""
    parser = argparse.ArgumentParser(
        prog="evalmark",
        description="Offline-first, deterministic evaluation for LLM applications.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        if load is None or name in load:
            module = importlib.import_module(f"evalmark.cli._{name}")
            module.register(sub)
        else:
            sub.add_parser(name, help=_SUMMARIES.get(name))
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option; the
    top-level options take no values), or None."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def _keep_odd_text(stream: object) -> None:
    """Print text UTF-8 cannot hold (a lone surrogate in an application's answer) as
    ``\\udcff``, as the reports do, instead of failing after the run."""
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    _keep_odd_text(sys.stdout)
    command = _command_of(words)
    try:
        parser = build_parser(load=() if command is None else (command,))
    except ExtensionNotBuiltError as exc:  # a source tree never built: one line on how to
        print(f"evalmark: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(words)
    args.command_words = words  # what a command re-executes (evalmark run --isolate-network)
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
    except (RecursionError, MemoryError) as exc:  # the last resort: inputs are checked first
        what = (
            "an input is nested too deeply" if isinstance(exc, RecursionError) else "out of memory"
        )
        print(
            f"evalmark {args.command}: error: {what} ({type(exc).__name__}); check the inputs "
            "for deep nesting or huge values, or give evalmark more memory",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C outside a command's own handling: one line, exit 130
        print(f"evalmark {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
