"""Write, or check, the command outputs shown in README.md and docs/*.md from the real commands.

A fenced block that shows a command's output is preceded by a marker naming the commands::

    <!-- output
    $ evalmark run golden/support --build regressed
      show: /^failing cases/ .. -2
    $ evalmark tune golden/support --flip 0.03,0.08
      show: 1..3, /^recommended/
      exit: hide
    -->

``python tools/docs_outputs.py`` runs each block's commands and rewrites the block below the
marker; ``--check`` rewrites nothing and exits 1 with a diff when a block differs from what the
commands print now (CI runs it), or when a block shows output (a ``$`` line followed by other
lines) without a marker. A one-command marker fits on a line: ``<!-- output: evalmark ... -->``.

Each ``$`` line is a bash command (a line ending in ``\\`` continues on the next), run from the
repository root with a fixed environment: ``CI=true``, no colour, ``COLUMNS=100``, stdin empty,
stderr merged into stdout, the history in a fresh temporary file per block. The commands of a
block share one shell, so ``cd`` carries over. Shown under the ``$`` line: the output lines that
``show`` selects (all by default) and ``[exit N]`` (unless ``exit: hide``). Options, indented
under their ``$`` line:

- ``show: ITEM, ...``: the lines to show; an ITEM is a line or a range ``A .. B`` where A and B
  are a line number (1-based; negative counts from the end) or ``/regex/`` (the first line
  matching, at or after the previous item; ``/regex/+N`` or ``-N`` moves from it); a range's
  end may also be ``+N``, N lines after its start. Left-out
  lines become one ``...`` line per gap.
- ``exit: hide``: no ``[exit N]`` line.
- ``show: none``: only the command (and its exit line).
- ``sub: /regex/replacement/``: replace in the output (times, commits), before ``show``.
- ``hidden``: run the command but show nothing of it (a setup step the page describes).
- ``requires: PROGRAM``: without PROGRAM on PATH the block is left as it is, with a warning
  (CI installs what the pages need, bubblewrap for the code sandbox).

Before a page's commands run, each fenced block preceded by ``<!-- file: PATH -->`` is written
to PATH (relative to the repository root), so the code a page shows is the code its commands run.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600  # seconds for one block's commands
FENCE = re.compile(r"^(`{3,})(.*)$")
MARKER = re.compile(r"^<!-- output(?::\s*(?P<one>.*?))?\s*(?P<end>-->)?\s*$")
FILE_MARKER = re.compile(r"^<!-- file: (?P<path>\S+) -->\s*$")


class MarkerError(Exception):
    """A marker that cannot be read, or a command that did not finish."""


@dataclass
class Entry:
    """One command of a marker and how its output is shown."""

    command: list[str]
    show: str = ""
    exit: bool = True
    hidden: bool = False
    requires: str = ""
    subs: list[tuple[re.Pattern[str], str]] = field(default_factory=list)


@dataclass
class Block:
    """A marker and the fenced block it produces: lines [start, end) of the page."""

    entries: list[Entry]
    start: int
    end: int
    fence: str


def _parse_entries(lines: list[str], where: str) -> list[Entry]:
    entries: list[Entry] = []
    for line in lines:
        if line.startswith("$ "):
            entries.append(Entry([line[2:]]))
        elif not line.strip():
            continue
        elif not entries:
            raise MarkerError(f"{where}: a marker starts with a '$ command' line, not {line!r}")
        elif entries[-1].command[-1].endswith("\\"):
            entries[-1].command.append(line)
        else:
            key, _, value = line.strip().partition(":")
            value = value.strip()
            if key == "requires" and value:
                entries[-1].requires = value
            elif key == "hidden" and not value:
                entries[-1].hidden = True
            elif key == "show":
                entries[-1].show = value
            elif key == "exit" and value in ("hide", "show"):
                entries[-1].exit = value == "show"
            elif key == "sub" and len(value) > 2 and value.count(value[0]) >= 3:
                sep = value[0]
                pattern, replacement = value[1:].rstrip(sep).rsplit(sep, 1)
                entries[-1].subs.append((re.compile(pattern, re.M), replacement))
            else:
                raise MarkerError(f"{where}: unknown marker option {line.strip()!r}")
    if not entries:
        raise MarkerError(f"{where}: a marker with no command")
    return entries


def find_blocks(text: str, page: str) -> tuple[list[Block], list[tuple[str, list[str]]]]:
    """Return the marked output blocks of a page and its ``file:`` blocks (path, lines).

    Raises MarkerError for a malformed marker and for a block showing output with no marker.
    """
    lines = text.split("\n")
    blocks: list[Block] = []
    files: list[tuple[str, list[str]]] = []
    i = 0
    pending: list[Entry] | None = None
    pending_file: str | None = None
    while i < len(lines):
        line = lines[i]
        where = f"{page}:{i + 1}"
        marker = MARKER.match(line)
        file_marker = FILE_MARKER.match(line)
        fence = FENCE.match(line)
        if marker:
            if marker.group("one"):
                body = [f"$ {marker.group('one')}"]
            else:
                body = []
                i += 1
                while i < len(lines) and lines[i].strip() != "-->":
                    body.append(lines[i])
                    i += 1
            pending = _parse_entries(body, where)
        elif file_marker:
            pending_file = file_marker.group("path")
        elif fence:
            close = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1)), None
            )
            if close is None:
                raise MarkerError(f"{where}: a fenced block that is never closed")
            inner = lines[i + 1 : close]
            if pending is not None:
                blocks.append(Block(pending, i + 1, close, fence.group(1)))
            elif pending_file is not None:
                files.append((pending_file, inner))
            elif fence.group(2).strip() in ("", "console", "text") and _shows_output(inner):
                raise MarkerError(
                    f"{where}: this block shows a command's output but has no <!-- output --> "
                    "marker, so nothing keeps it true; add one (see tools/docs_outputs.py)"
                )
            pending = pending_file = None
            i = close
        elif line.strip():
            if pending is not None:
                raise MarkerError(f"{where}: an output marker must stand right before its block")
            pending_file = None
        i += 1
    return blocks, files


def _shows_output(inner: list[str]) -> bool:
    """True when a block holds a ``$ command`` line followed by a line that is not a command."""
    if not inner or not inner[0].startswith("$ "):
        return False
    continued = False
    for line in inner:
        if not (line.startswith("$ ") or continued):
            return True
        continued = line.endswith("\\")
    return False


def _environment(history: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in [n for n in env if n.startswith(("EVALMARK_", "PYTEST_", "GITHUB_"))]:
        del env[name]
    env.update(
        CI="true",
        NO_COLOR="1",
        TERM="dumb",
        COLUMNS="100",
        LINES="50",
        PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1",
        EVALMARK_HISTORY=str(history),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


def run_block(block: Block, where: str, root: Path = ROOT) -> list[str]:
    """Run a block's commands in one shell and return the lines the block shows."""
    token = f"@@docs-outputs-{secrets.token_hex(8)}"
    script = ["set +e"]
    for entry in block.entries:
        script += ["{ " + "\n".join(entry.command), "} 2>&1 </dev/null"]
        script.append(f"printf '\\n{token} %d\\n' $?")
    with tempfile.TemporaryDirectory(prefix="docs-outputs-") as tmp:
        try:
            done = subprocess.run(
                ["bash", "-c", "\n".join(script)],
                cwd=root,
                env=_environment(Path(tmp) / "history.sqlite"),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired as exc:
            raise MarkerError(f"{where}: the commands did not finish in {TIMEOUT} s") from exc
    chunks = re.split(rf"^{token} (\d+)$\n?", done.stdout, flags=re.M)
    if len(chunks) != 2 * len(block.entries) + 1:
        raise MarkerError(f"{where}: the shell stopped early:\n{done.stdout}")
    shown: list[str] = []
    previous_printed = False
    for n, entry in enumerate(block.entries):
        # the marker's printf starts with a newline; the output's own last newline goes too
        output = chunks[2 * n].removesuffix("\n").removesuffix("\n")
        status = int(chunks[2 * n + 1])
        for pattern, replacement in entry.subs:
            output = pattern.sub(replacement, output)
        out = [line.rstrip() for line in output.split("\n")] if output else []
        if entry.hidden:
            continue
        if previous_printed:
            shown.append("")
        shown += ["$ " + entry.command[0], *entry.command[1:]]
        kept = [] if entry.show == "none" else select(out, entry.show, where) if entry.show else out
        printed = kept + ([f"[exit {status}]"] if entry.exit else [])
        shown += printed
        previous_printed = bool(printed)
    return shown


def _position(spec: str, lines: list[str], after: int, where: str) -> int:
    """The 0-based index a show position names."""
    spec = spec.strip()
    found = re.fullmatch(r"/(.*)/([+-]\d+)?", spec)
    if found:
        pattern = re.compile(found.group(1))
        for k in range(max(after, 0), len(lines)):
            if pattern.search(lines[k]):
                return k + int(found.group(2) or 0)
        raise MarkerError(f"{where}: show: no output line matches /{found.group(1)}/")
    if re.fullmatch(r"\+\d+", spec) and after + int(spec) < len(lines):
        return after + int(spec)
    if re.fullmatch(r"-?\d+", spec):
        number = int(spec)
        index = number - 1 if number > 0 else len(lines) + number
        if 0 <= index < len(lines):
            return index
        raise MarkerError(f"{where}: show: line {number} is beyond the {len(lines)} lines")
    raise MarkerError(f"{where}: show: cannot read {spec!r}")


def select(lines: list[str], show: str, where: str) -> list[str]:
    """Return the lines a ``show`` spec keeps, with ``...`` for each gap."""
    keep: list[int] = []
    cursor = 0
    for item in show.split(","):
        first, dots, last = item.partition("..")
        a = _position(first, lines, cursor, where)
        b = _position(last, lines, a, where) if dots else a
        keep += [k for k in range(a, b + 1) if k not in keep]
        cursor = a
    shown: list[str] = []
    previous = -1
    for k in sorted(keep):
        if k != previous + 1:
            shown.append("...")
        shown.append(lines[k])
        previous = k
    if previous != len(lines) - 1:
        shown.append("...")
    return shown


def render_page(path: Path, root: Path = ROOT) -> str:
    """Return the page with every marked block rewritten from its commands."""
    page = str(path.relative_to(root))
    text = path.read_text(encoding="utf-8")
    blocks, files = find_blocks(text, page)
    for target, content in files:
        destination = root / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text("\n".join(content) + "\n", encoding="utf-8")
    lines = text.split("\n")
    for block in reversed(blocks):
        if shutil.which("bash") is None:
            raise MarkerError("bash is needed to run the documented commands")
        missing = [e.requires for e in block.entries if e.requires and not shutil.which(e.requires)]
        if missing:
            print(
                f"docs-outputs: {page}:{block.start}: not run, {missing[0]} is not installed",
                file=sys.stderr,
            )
            continue
        lines[block.start : block.end] = run_block(block, f"{page}:{block.start}", root)
    return "\n".join(lines)


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    """Rewrite the shown outputs (or, with --check, compare them); exit 1 on a difference."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help="run the commands here")
    parser.add_argument("pages", nargs="*", type=Path, help="default: README.md and docs/")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    chosen = [p.resolve() for p in args.pages] or pages()
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            rendered = list(pool.map(lambda page: render_page(page, root), chosen))
    except MarkerError as exc:
        print(f"docs-outputs: {exc}", file=sys.stderr)
        return 2
    differ = False
    for path, new in zip(chosen, rendered, strict=True):
        old = path.read_text(encoding="utf-8")
        if new == old:
            continue
        name = str(path.relative_to(root))
        if args.check:
            differ = True
            diff = difflib.unified_diff(
                old.splitlines(), new.splitlines(), f"{name} (shown)", f"{name} (printed)", n=2
            )
            print("\n".join(diff))
        else:
            path.write_text(new, encoding="utf-8")
            print(f"docs-outputs: rewrote {name}")
    if differ:
        print("docs-outputs: shown outputs differ from the commands; run `make docs-outputs`")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
