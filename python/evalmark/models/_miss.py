"""The message of a ``CassetteMiss``: what was asked, what is recorded, how to record it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalmark.models._cassette_file import Entry
from evalmark.models._modes import BY_ARGUMENT, CI_FORCED, MODE_ENV, BeyondRecorded, ResolvedMode

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


def _distance(diff: list[tuple[str, Any, Any]]) -> float:
    """How far apart two requests are: per differing field, 1 - the Levenshtein similarity of
    two texts, or 1 for anything else."""
    texts = [(w, h) for _, w, h in diff if isinstance(w, str) and isinstance(h, str)]
    total = float(len(diff) - len(texts))
    if texts:
        from evalmark.metrics import levenshtein_similarity_batch

        similarity = levenshtein_similarity_batch([w for w, _ in texts], [h for _, h in texts])
        total += float(len(texts) - sum(float(value) for value in similarity))
    return total


def closest(
    request: dict[str, Any], candidates: Iterable[Entry]
) -> tuple[Entry, list[tuple[str, Any, Any]]] | None:
    """The recorded entry of the same kind most like ``request``: the smallest sum, over the
    fields that differ, of the texts' edit distance (normalized) or 1 per other field."""
    best: tuple[float, int, str, Entry, list[tuple[str, Any, Any]]] | None = None
    for entry in candidates:
        if entry.kind != request.get("kind") or entry.index != 0:
            continue
        diff = differences(request, entry.request)
        rank = (_distance(diff), len(diff), entry.key)
        if best is None or rank < best[:3]:
            best = (*rank, entry, diff)
    return None if best is None else (best[3], best[4])


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
    recorded: tuple[int, ...],
    beyond: BeyondRecorded,
    candidates: Iterable[Entry],
    also_missing: int = 0,
) -> str:
    """Explain a miss, the hint first (pytest shows only the start of a message): how to
    record it, then the cassette, the mode, the key and what is closest."""
    plural = "entry" if total_entries == 1 else "entries"
    state = f"exists, {total_entries} {plural}" if exists else "does not exist yet"
    lines = [
        _hint(path, mode, sample_index, recorded, beyond),
        f"  the {request.get('kind', 'chat')} request of model {request.get('model')!r}; "
        f"cassette {path} ({state}); mode {mode.mode.value} ({mode.source}).",
        f"  key {key}, sample index {sample_index}: {_recorded_text(recorded, sample_index)}",
    ]
    if also_missing:
        lines.append(f"  {also_missing} more text(s) of the same batch are missing too.")
    if not recorded:
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
    return "\n".join(lines)


def _recorded_text(recorded: tuple[int, ...], sample_index: int) -> str:
    if not recorded:
        return "no sample is recorded for this key."
    shown = ", ".join(map(str, recorded[:8])) + (", …" if len(recorded) > 8 else "")
    return (
        f"{len(recorded)} sample(s) recorded for this key (indexes {shown}); this call asks "
        f"for sample {sample_index} (the repeat of its call context), and "
        "beyond_recorded='error' does not reuse another."
    )


def _hint(
    path: Path,
    mode: ResolvedMode,
    sample_index: int,
    recorded: tuple[int, ...],
    beyond: BeyondRecorded,
) -> str:
    what = f"sample {sample_index}" if recorded else "this request"
    if mode.source == BY_ARGUMENT:
        how = (
            f"pass mode='record-missing' instead of mode='{mode.mode.value}' to record_replay "
            "(its mode argument overrides EVALMARK_RECORD_MODE; `evalmark run` sets it from "
            "--record-mode)"
        )
    else:
        how = (
            f"run once with the real model and {MODE_ENV}=record-missing (under pytest: "
            "--evalmark-record-mode=record-missing)"
        )
        if mode.source == CI_FORCED:
            how = f"outside CI (CI forces replay), {how}"
    hint = f"no recording of {what}: to record it, {how}; then commit {path.name}."
    if recorded and beyond is BeyondRecorded.ERROR:
        hint += " Or pass beyond_recorded='repeat' to replay the last recorded sample."
    return hint
