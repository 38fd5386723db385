"""The message of a ``CassetteMiss``: what was asked, what is recorded, how to record it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalmark.models.cassette_file import Entry
from evalmark.models.modes import CI_FORCED, MODE_ENV, RecordMode, ResolvedMode

_MAX_DIFFERENCES = 8
_MAX_VALUE = 70


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def differences(wanted: dict[str, Any], recorded: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, wanted value, recorded value) for every leaf that differs; absent is ``...``."""
    mine = dict(_leaves(wanted, ""))
    theirs = dict(_leaves(recorded, ""))
    fields = sorted(set(mine) | set(theirs))
    return [
        (field, mine.get(field, ...), theirs.get(field, ...))
        for field in fields
        if mine.get(field, ...) != theirs.get(field, ...)
    ]


def closest(
    request: dict[str, Any], candidates: Iterable[Entry]
) -> tuple[Entry, list[tuple[str, Any, Any]]] | None:
    """The recorded entry whose request differs from ``request`` in the fewest fields."""
    best: tuple[int, str, Entry, list[tuple[str, Any, Any]]] | None = None
    for entry in candidates:
        if entry.kind != request.get("kind") or entry.index != 0:
            continue
        diff = differences(request, entry.request)
        rank = (len(diff), entry.key)
        if best is None or rank < (best[0], best[1]):
            best = (len(diff), entry.key, entry, diff)
    return None if best is None else (best[2], best[3])


def _show(value: Any) -> str:
    if value is ...:
        return "(absent)"
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def miss_message(
    *,
    path: Path,
    exists: bool,
    total_entries: int,
    mode: ResolvedMode,
    request: dict[str, Any],
    key: str,
    sample_index: int,
    recorded: int,
    candidates: Iterable[Entry],
    also_missing: int = 0,
) -> str:
    """Explain a miss: the cassette, the mode, the key, what is closest, and how to record."""
    plural = "entry" if total_entries == 1 else "entries"
    state = f"exists, {total_entries} {plural}" if exists else "does not exist yet"
    lines = [
        f"no recording for this {request.get('kind', 'chat')} request of model "
        f"{request.get('model')!r} in cassette {path} ({state}); mode {mode.mode.value} "
        f"({mode.source}).",
        f"  key {key}, sample index {sample_index}: {_recorded_text(recorded, sample_index)}",
    ]
    if also_missing:
        lines.append(f"  {also_missing} more text(s) of the same batch are missing too.")
    if recorded == 0:
        found = closest(request, candidates)
        if found is None:
            lines.append("  nothing of this kind is recorded in the cassette.")
        else:
            entry, diff = found
            lines.append(f"  closest recorded request (key {entry.key[:12]}…) differs in:")
            for field, wanted, have in diff[:_MAX_DIFFERENCES]:
                lines.append(f"    {field}: asked {_show(wanted)}, recorded {_show(have)}")
            if len(diff) > _MAX_DIFFERENCES:
                lines.append(f"    … and {len(diff) - _MAX_DIFFERENCES} more fields")
    lines.append(_how_to_record(path, mode))
    return "\n".join(lines)


def _recorded_text(recorded: int, sample_index: int) -> str:
    if recorded == 0:
        return "no sample is recorded for this key."
    return (
        f"{recorded} sample(s) recorded for this key (indexes 0–{recorded - 1}); this is "
        f"identical call number {sample_index + 1} in this run. Record more samples, or make "
        "fewer identical calls."
    )


def _how_to_record(path: Path, mode: ResolvedMode) -> str:
    command = (
        f"  To record it, run once with the real model: {MODE_ENV}=record-missing <your command> "
        "(under pytest: --evalmark-record-mode=record-missing)"
    )
    if mode.mode is RecordMode.REPLAY and mode.source == CI_FORCED:
        command += " outside CI (CI forces replay), or pass mode='record-missing' to record_replay"
    return f"{command}; then commit {path}."
