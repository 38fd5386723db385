"""Running evalmark's command line in-process for property tests: a fresh working folder, and
``main(argv)`` with its output captured (Hypothesis runs many examples in one test, so the
fixtures ``tmp_path`` and ``capsys`` would be shared between them)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from evalmark.cli import main


@contextlib.contextmanager
def in_folder() -> Iterator[Path]:
    """An empty temporary folder, made the working folder for the block."""
    before = Path.cwd()
    with tempfile.TemporaryDirectory() as name:
        os.chdir(name)
        try:
            yield Path(name)
        finally:
            os.chdir(before)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` with stdout and stderr captured: (exit code, stdout, stderr); an exit by
    ``SystemExit`` (argparse) gives its code, 2 when it has none."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()
