"""``evalmark code run PATH``: score recorded solutions of programming tasks in a sandbox and
report pass@k; exit 1 when the gate fails."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_INTERRUPTED, EXIT_OK
from evalmark.errors import CliError, SandboxUnavailableError

_PROGRESS_DELAY = 0.5  # seconds before the progress line appears

_EPILOG = """\
examples:
  evalmark code run golden/code
  evalmark code run golden/code --sandbox local --k 1,3
  evalmark code run my-tasks/code.yaml --json out/code.json --quiet

PATH is a code-run file (code.yaml) or its folder. It names the tasks file (test code or
stdin/stdout cases per task), the recorded solutions (JSON Lines: task, sample, completion),
the sandbox, the limits, the k of pass@k and the gate. See docs/code.md.

sandboxes:
  bwrap  bubblewrap namespaces: no network, read-only system, private work dir (default)
  local  a subprocess with rlimits and a timeout: NOT a security boundary

exit codes:
  0  the gate passed (or there is none)
  1  a pass@k is below its threshold in the gate
  2  usage or input error, or the sandbox cannot run on this machine
  130  interrupted (Ctrl-C): the running sandboxes were killed, nothing written
"""


def register(subparsers: Any) -> None:
    """Add the ``code`` subcommand (with ``code run``)."""
    parser = subparsers.add_parser(
        "code",
        help="score generated code in a sandbox (pass@k)",
        description="Evaluate generated code: run recorded solutions against tests in a "
        "sandbox and report pass@k.",
    )
    sub = parser.add_subparsers(dest="code_command", metavar="ACTION")
    run = sub.add_parser(
        "run",
        help="score the solutions of a code-run file and apply its gate",
        description="Extract the code from each recorded solution, run it against its task's "
        "tests in the sandbox, and report pass@k per task and overall.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("path", type=Path, metavar="PATH", help="code.yaml, or its folder")
    run.add_argument("--sandbox", choices=("bwrap", "local"), help="override the file's sandbox")
    run.add_argument("--k", metavar="K[,K...]", help="pass@k to report, e.g. 1,5")
    run.add_argument(
        "--concurrency", type=int, metavar="N", help="runs in flight (default: the file's)"
    )
    run.add_argument("--solutions", type=Path, metavar="FILE", help="another solutions file")
    run.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    run.add_argument(
        "--quiet", "-q", action="store_true", help="print only the summary and the gate"
    )
    run.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress on stderr (default: when stderr is a terminal)",
    )
    run.set_defaults(handler=run_command)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _parse_k(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise CliError(f"--k takes whole numbers separated by commas, got {text!r}") from None
    if not values or any(value < 1 for value in values):
        raise CliError(f"--k takes whole numbers >= 1, got {text!r}")
    return values


def run_command(args: argparse.Namespace) -> int:
    """Handle ``evalmark code run``."""
    from evalmark._files.atomic import write_atomically
    from evalmark._progress import make_progress
    from evalmark.code._config import check_gate, load_code_config
    from evalmark.code._report import render_gate, render_run
    from evalmark.code._sandbox import bwrap_version
    from evalmark.code._tasks import run_tasks

    if args.concurrency is not None and args.concurrency < 1:
        raise CliError(f"--concurrency must be at least 1, got {args.concurrency}")
    config = load_code_config(args.path)
    k = set(_parse_k(args.k) if args.k else config.k) | set(config.gate)
    sandbox = args.sandbox or config.sandbox
    bar = make_progress(
        args.progress, "running", None, "runs", noun="runs", delay=_PROGRESS_DELAY, transient=True
    )
    interrupted = False
    try:
        run = run_tasks(
            config.tasks,
            args.solutions or config.solutions,
            sandbox=sandbox,
            limits=config.limits,
            k=sorted(k),
            concurrency=args.concurrency or config.concurrency,
            extract=config.extract,
            select=config.select,
            progress=bar.advance,
        )
    except SandboxUnavailableError as exc:
        raise CliError(f"the {sandbox} sandbox cannot run here: {exc}") from None
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    if interrupted:
        print(
            "evalmark code run: interrupted; the running sandboxes were killed, nothing written",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    heading = f"evalmark code run {args.path}"
    if sandbox == "bwrap":
        heading += f" ({bwrap_version() or 'bubblewrap'})"
    print(heading)
    print(render_run(run, failures=not args.quiet, per_task=not args.quiet))
    checks = check_gate(config.gate, run.pass_at_k)
    gate_text = render_gate(checks)
    if gate_text:
        print(gate_text)
    if args.json is not None:
        document = {"path": str(args.path), **run.to_dict()}
        document["gate"] = [
            {"k": c.k, "required": c.required, "actual": c.actual, "passed": c.passed}
            for c in checks
        ]
        text = json.dumps(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
        write_atomically(args.json, text.encode())
    return EXIT_OK if all(c.passed for c in checks) else EXIT_GATE_FAILED
