"""``evalmark cassette ls|verify|prune PATH``: inspect, check and trim recorded model calls."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.atomic import write_atomically as write_atomic
from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.errors import CassetteFormatError, CliError, SecretFound
from evalmark.models.canonical import request_key
from evalmark.models.cassette_file import (
    Entry,
    locked,
    parse_cassette,
    read_cassette,
    serialize,
)
from evalmark.models.recorder import USAGE_ENV, decode_vector
from evalmark.models.secrets import SecretScanner
from evalmark.models.values import ChatReply, content_text

_WIDTH = 48


def register(subparsers: Any) -> None:
    """Add the ``cassette`` subcommand and its ``ls``, ``verify`` and ``prune`` actions."""
    parser = subparsers.add_parser(
        "cassette",
        help="list, verify or prune recorded model calls",
        description="Inspect, check and trim evalmark cassettes (JSON Lines recordings).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    ls = actions.add_parser("ls", help="list the entries of cassettes")
    ls.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ls.set_defaults(handler=_ls)

    verify = actions.add_parser(
        "verify",
        help="check cassettes: format, keys, order, secrets, responses",
        description=(
            "Exit 0 when every cassette is sound, 1 when a problem is found (each is listed)."
        ),
    )
    verify.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    verify.add_argument(
        "--secret-pattern",
        action="append",
        default=[],
        metavar="REGEX",
        help="also refuse text matching REGEX (repeatable)",
    )
    verify.set_defaults(handler=_verify)

    prune = actions.add_parser(
        "prune",
        help="drop entries a run never used",
        description=(
            f"Keep only the entries listed in a usage file. Produce one by running your tests "
            f"with {USAGE_ENV}=FILE: every cassette then appends the entries it used at exit."
        ),
    )
    prune.add_argument("path", type=Path, metavar="PATH")
    prune.add_argument("--usage", type=Path, required=True, metavar="FILE", help="usage file")
    prune.add_argument("--dry-run", action="store_true", help="list what would go; change nothing")
    prune.set_defaults(handler=_prune)


def _excerpt(text: str, width: int = _WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _summary(entry: Entry) -> str:
    request = entry.request
    if entry.kind == "embedding":
        shape = entry.response.get("shape")
        return f"{_excerpt(str(request.get('input', '')))!r} -> vector {shape}"
    messages = request.get("messages") or []
    asked = content_text(messages[-1].get("content")) if messages else ""
    return f"{_excerpt(asked)!r} -> {_excerpt(str(entry.response.get('text', '')))!r}"


def _ls(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not path.exists():
            raise CliError(f"{path}: no such cassette")
        contents = read_cassette(path)
        kinds = Counter(entry.kind for entry in contents.entries)
        keys = len({entry.key for entry in contents.entries})
        described = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        print(f"{path}: {len(contents.entries)} entries, {keys} keys ({described or 'empty'})")
        for entry in contents.entries:
            model = entry.request.get("model", "?")
            print(
                f"  {entry.key[:12]} #{entry.index:<2} {entry.kind:<9} {model}  {_summary(entry)}"
            )
    return EXIT_OK


def problems_of(path: Path, scanner: SecretScanner) -> list[str]:
    """Everything wrong with one cassette, one message per problem."""
    try:
        contents = parse_cassette(path.read_bytes(), str(path))
    except FileNotFoundError:
        return [f"{path}: no such cassette"]
    except CassetteFormatError as exc:
        return [str(exc)]
    problems: list[str] = []
    previous: tuple[str, int] | None = None
    counts: Counter[str] = Counter()
    dims: dict[str, set[tuple[int, ...]]] = {}
    for entry, line in zip(contents.entries, contents.lines, strict=True):
        where = f"{path}:{line}"
        try:
            expected = request_key(entry.request)
        except (TypeError, ValueError) as exc:
            problems.append(f"{where}: the request has no canonical form: {exc}")
            continue
        if expected != entry.key:
            problems.append(
                f"{where}: key {entry.key[:12]}… does not match its request (which hashes to "
                f"{expected[:12]}…); the request was edited by hand, so this entry never replays"
            )
        if entry.request.get("kind") != entry.kind:
            problems.append(f"{where}: kind {entry.kind!r} but the request says otherwise")
        if previous is not None and entry.slot < previous:
            problems.append(f"{where}: entries are not sorted by key then sample index")
        previous = entry.slot
        counts[entry.key] += 1
        try:
            scanner.check(entry.request, "request", where=where)
            scanner.check(entry.response, "response", where=where)
        except SecretFound as exc:
            problems.append(str(exc).replace("refusing to write ", "secret in "))
        if entry.kind == "chat":
            try:
                msgspec.convert(entry.response, ChatReply)
            except msgspec.ValidationError as exc:
                problems.append(f"{where}: invalid chat response: {exc}")
        else:
            try:
                vector = decode_vector(entry.response, where)
                dims.setdefault(str(entry.request.get("model")), set()).add(vector.shape)
            except CassetteFormatError as exc:
                problems.append(str(exc))
    indexes: dict[str, set[int]] = {}
    for entry in contents.entries:
        indexes.setdefault(entry.key, set()).add(entry.index)
    for key, found in sorted(indexes.items()):
        if found != set(range(len(found))):
            problems.append(
                f"{path}: key {key[:12]}… has sample indexes {sorted(found)}; a gap means the "
                "later samples are never replayed"
            )
    for model, shapes in sorted(dims.items()):
        if len(shapes) > 1:
            problems.append(f"{path}: model {model!r} has vectors of shapes {sorted(shapes)}")
    return problems


def _verify(args: argparse.Namespace) -> int:
    scanner = SecretScanner(args.secret_pattern)
    failed = False
    for path in args.paths:
        problems = problems_of(path, scanner)
        if problems:
            failed = True
            for problem in problems:
                print(problem)
        else:
            print(f"{path}: ok")
    return EXIT_GATE_FAILED if failed else EXIT_OK


def _used_slots(usage_file: Path, cassette: Path) -> set[tuple[str, int]]:
    try:
        raw = usage_file.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{usage_file}: no such usage file") from None
    wanted = os.path.abspath(cassette)
    used: set[tuple[str, int]] = set()
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = msgspec.json.decode(line)
            if os.path.abspath(record["cassette"]) == wanted:
                used.add((str(record["key"]), int(record["index"])))
        except (msgspec.DecodeError, KeyError, TypeError, ValueError):
            raise CliError(
                f"{usage_file}:{number}: not a usage line "
                '({"cassette": ..., "key": ..., "index": ...})'
            ) from None
    return used


def _prune(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.exists():
        raise CliError(f"{path}: no such cassette")
    used = _used_slots(args.usage, path)
    if not used:
        raise CliError(
            f"{args.usage} lists no entry of {path}; refusing to empty the cassette (was the "
            f"run made with {USAGE_ENV} set, against this same path?)"
        )
    with locked(path):
        contents = read_cassette(path)
        keep = [entry for entry in contents.entries if entry.slot in used]
        drop = [entry for entry in contents.entries if entry.slot not in used]
        for entry in drop:
            print(f"{'would drop' if args.dry_run else 'dropped'} {entry.key[:12]} #{entry.index}")
        if drop and not args.dry_run:
            write_atomic(path, serialize(keep))
    verb = "would keep" if args.dry_run else "kept"
    print(f"{path}: {verb} {len(keep)} of {len(contents.entries)} entries")
    return EXIT_OK
