"""``evalmark cassette ls|verify|prune PATH``: inspect, check and trim recorded model calls."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.errors import CassetteFormatError, CliError, SecretFound
from evalmark.models._attachments import blob_problems, blob_refs, unused_blobs
from evalmark.models._canonical import request_key
from evalmark.models._cassette_file import (
    Entry,
    locked,
    parse_cassette,
    read_cassette,
    serialize,
    write_cassette,
)
from evalmark.models._recorder import USAGE_ENV, decode_vector
from evalmark.models._secrets import SecretScanner
from evalmark.models._values import ChatReply, content_text
from evalmark.report._wording import plural

_WIDTH = 48


def register(subparsers: Any) -> None:
    """Add the ``cassette`` subcommand and its ``ls``, ``verify`` and ``prune`` actions."""
    parser = subparsers.add_parser(
        "cassette",
        help="list, check or trim cassettes (recorded model calls)",
        description=(
            "A cassette is a JSON Lines file of recorded model calls; record_replay answers\n"
            "from it, so tests replay offline. These actions list what a cassette holds,\n"
            "check it before you commit it, and drop the entries your tests no longer use."
        ),
        epilog=(
            "examples:\n"
            "  evalmark cassette ls tests/cassettes/judge.jsonl\n"
            "  evalmark cassette verify tests/cassettes/*.jsonl\n"
            f"  {USAGE_ENV}=$PWD/usage.jsonl pytest\n"
            "  evalmark cassette prune tests/cassettes/judge.jsonl --usage usage.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True, title="actions")

    ls = actions.add_parser(
        "ls",
        help="list the entries of cassettes",
        description=(
            "List every entry of each cassette: its key, sample index, kind and model, the "
            "question asked and the answer recorded (shortened), and how many places were "
            "redacted. Exit 0, or 2 when a file is missing or unreadable."
        ),
    )
    ls.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="cassette files")
    ls.set_defaults(handler=_ls)

    verify = actions.add_parser(
        "verify",
        help="check cassettes: format, keys, order, secrets, responses",
        description=(
            "Check each cassette as a reviewer would before committing it: every line parses, "
            "every key matches its request (an edited request never replays), entries are "
            "sorted, responses are well formed, and no text or credential field holds what "
            "looks like a secret. Exit 0 when every cassette is sound, 1 when a problem is found "
            "(each is listed with its file and line), 2 on a usage error."
        ),
    )
    verify.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="cassette files")
    verify.add_argument(
        "--secret-pattern",
        action="append",
        default=[],
        metavar="REGEX",
        help="also report text matching REGEX as a secret (repeatable)",
    )
    verify.set_defaults(handler=_verify)

    prune = actions.add_parser(
        "prune",
        help="drop entries a run never used",
        description=(
            f"Keep only the entries listed in a usage file. Produce one by running your tests "
            f"with {USAGE_ENV}=FILE: every cassette then appends the entries it used at exit. "
            "The cassette is rewritten atomically under its lock; the attachment blobs beside "
            "it (<stem>.blobs/) that no kept entry refers to are removed."
        ),
    )
    prune.add_argument("path", type=Path, metavar="PATH", help="the cassette to trim")
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
        print(
            f"{path}: {plural(len(contents.entries), 'entry', 'entries')}, "
            f"{plural(keys, 'key', 'keys')} ({described or 'empty'})"
        )
        for entry in contents.entries:
            model = entry.request.get("model", "?")
            redacted = f"  [{len(entry.redacted)} redacted]" if entry.redacted else ""
            print(
                f"  {entry.key[:12]} #{entry.index:<2} {entry.kind:<9} {model}  "
                f"{_summary(entry)}{redacted}"
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
            problems.extend(blob_problems(path, blob_refs(entry.request), where))
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
        except (msgspec.DecodeError, KeyError, TypeError, ValueError, RecursionError):
            raise CliError(
                f"{usage_file}:{number}: not a usage line "
                '({"cassette": ..., "key": ..., "index": ...}); make the usage file again '
                f"by running your tests with {USAGE_ENV} set"
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
            write_cassette(path, serialize(keep))
        for blob in unused_blobs(path, (entry.request for entry in keep)):
            print(f"{'would remove' if args.dry_run else 'removed'} attachment {blob.name[:12]}")
            if not args.dry_run:
                blob.unlink()
    verb = "would keep" if args.dry_run else "kept"
    print(f"{path}: {verb} {len(keep)} of {plural(len(contents.entries), 'entry', 'entries')}")
    return EXIT_OK
