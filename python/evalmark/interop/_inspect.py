"""inspect_ai eval logs: the ``.json`` log (``--log-format json``) and the ``.eval`` zip
(``header.json`` and one ``samples/ID_epoch_N.json`` member per sample and epoch).

A dataset sample (its ``id``) is an evalmark sample named ``<task>-<id>``: its ``input`` (a
text, or the message list itself) the parameter, its ``target`` the expected output (several
targets: the expected outputs). Each epoch of the log's model is a recorded build (one epoch:
the model's name; several: ``<model>-epoch-N``) whose answer is the sample's
``output.completion``. The ``match`` and ``includes`` scorers become ``inspect-scorer`` checks
and the import re-scores every sample and epoch, refusing when a recorded score differs.
What the run recorded per epoch (scores, messages, output, usage, times, store) is the sample's
metadata ``inspect-results.<build>``; the sample's own metadata ``inspect-metadata``; the
log's ``eval``, ``plan``, ``results`` and ``stats`` are kept verbatim in ``source.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.source import gc_paused
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._inspect_calls import tool_calls
from evalmark.interop._inspect_columns import Columns, by_build, fast_columns
from evalmark.interop._inspect_header import kept, read_header
from evalmark.interop._inspect_log import PER_EPOCH, REFUSED, Rows, decode, read_log
from evalmark.interop._inspect_quick import quick_import
from evalmark.interop._inspect_rescore import answers, check_parity, recorded_scores
from evalmark.interop._model import (
    Deferred,
    DeferredMapping,
    Imported,
    Losses,
    as_mapping,
    hash_later,
)
from evalmark.samples._sample import Parameters, Sample

__all__ = ["read_inspect"]

# The pool the event transcript refers to (inspect 0.3.1xx on): lost with the transcript.
_LOSS_NAMES = {"events_data": "events"}
_KEBAB = tuple(key.replace("_", "-") for key in PER_EPOCH)
_EMPTY: tuple[Any, ...] = (None, [], {}, "")
_NULL = msgspec.Raw(b"null")
_EMPTY_RAW = (None, _NULL, msgspec.Raw(b"[]"), msgspec.Raw(b"{}"), msgspec.Raw(b'""'))


_OUTPUT_FIELD, _SCORES_FIELD = attrgetter("output"), attrgetter("scores")


def _error(message: str, where: str, field: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=where, record=field)])


def _resolve(value: Any, attachments: Mapping[str, Any], where: str) -> Any:
    """``value`` with every ``attachment://HASH`` text replaced by the attachment it names."""
    if isinstance(value, str):
        if value.startswith("attachment://"):
            key = value[len("attachment://") :]
            if key not in attachments:
                raise _error(f"attachment {key!r} is not in the sample's attachments", where)
            return attachments[key]
        return value
    if isinstance(value, list):
        return [_resolve(v, attachments, where) for v in value]
    if isinstance(value, Mapping):
        return {k: _resolve(v, attachments, where) for k, v in value.items()}
    return value


def read_inspect(path: Path, losses: Losses) -> Imported:
    """Read an inspect_ai ``.json`` or ``.eval`` log (see the module's docstring)."""
    data = path.read_bytes()
    digest = hash_later([path], {path: data})  # in a thread, while the log is read

    def general(losses: Losses) -> Imported:
        with gc_paused(promote=True):  # many small containers, none cyclic, all kept
            return _read_inspect(path, data, losses, digest)

    with gc_paused(promote=True):
        return quick_import(path, data, losses, general, digest) or general(losses)


def _read_inspect(path: Path, data: bytes, losses: Losses, digest: Callable[[], str]) -> Imported:
    kind, header, rows = read_log(path, data)
    head = read_header(header, losses, str(path))
    task, model, rescored = head.task, head.model, head.rescored
    column = _Column(rows.wheres)
    fast = fast_columns(rows, task, model)
    if fast is None:
        epochs, firsts = _checked_rows(rows, losses, task, model, column, rescored)
        names = list(firsts)
        expected = [t[0] if len(t) == 1 else _expected(t)[0] for _, t in firsts.values()]
    else:
        found, epochs = fast
        column.names, column.builds, column.targets = found.names, found.builds, found.targets
        column.rows = found.rows
        firsts = _firsts(found) if epochs > 1 else {}
        names = found.names if epochs == 1 else list(firsts)
        targets = found.targets if epochs == 1 else [t for _, t in firsts.values()]
        expected = list(map(itemgetter(0), targets))  # one target each
    outputs = column.finish(rescored)
    samples = Deferred(
        lambda: _samples(firsts or _firsts(column), _recorded(column)), names, expected
    )
    # the tool calls (one epoch only) are found when first read: no re-score reads them
    extra: Mapping[str, Mapping[str, Any]] = (
        DeferredMapping(lambda: tool_calls(firsts or _firsts(column), rows, str(path)))
        if epochs == 1
        else {}
    )
    return Imported(
        format="inspect",
        version=f"{kind} log v2",
        files=(str(path),),
        sha256=digest(),
        samples=samples,
        checks=head.entries,
        outputs=outputs,
        lost=losses.used(),
        kept=kept(header),
        extra=extra,
    )


def _firsts(found: Columns | _Column) -> dict[str, tuple[Any, list[str]]]:
    """Each sample's first epoch's row and targets, by name, in order."""
    if len(found.names) == len(set(found.names)):
        return dict(zip(found.names, zip(found.rows, found.targets, strict=True), strict=True))
    firsts: dict[str, tuple[Any, list[str]]] = {}
    for name, row, targets in zip(found.names, found.rows, found.targets, strict=True):
        if name not in firsts:
            firsts[name] = (row, targets)
    return firsts


def _recorded(column: _Column) -> dict[str, dict[str, tuple[Any, ...]]]:
    """What each epoch recorded (the per-epoch fields), by sample name and build."""
    per_epoch = attrgetter(*PER_EPOCH)
    recorded: dict[str, dict[str, tuple[Any, ...]]] = {}
    for name, build, row in zip(column.names, column.builds, column.rows, strict=True):
        recorded.setdefault(name, {})[build] = per_epoch(row)
    return recorded


def _checked_rows(
    rows: Rows,
    losses: Losses,
    task: str,
    model: str,
    column: _Column,
    rescored: tuple[tuple[str, str, str, bool], ...],
) -> tuple[int, dict[str, tuple[Any, list[str]]]]:
    """Check the samples one by one, refusing the first fault in order (after an earlier
    sample's missing answer or parity error), filling ``column``: the number of epochs and
    each sample's first epoch's row and targets, by name."""
    epochs = max((int(r.epoch or 1) for r in rows.typed), default=1)
    firsts: dict[str, tuple[Any, list[str]]] = {}
    seen: set[tuple[str, str]] = set()
    names, optional_values = rows.optional()
    unset, checked = msgspec.UNSET, None
    add_name, add_build = column.names.append, column.builds.append
    add_target, add_row = column.targets.append, column.rows.append
    try:
        for where, row in rows.rows:
            if row.id is unset:
                raise _error("a sample needs an 'id'", where, "id")
            values = optional_values(row)
            if values != checked:  # rows mostly repeat the last one's (empty) optional fields
                for field, value in zip(names, values, strict=True):
                    if value in _EMPTY_RAW or decode(value) in _EMPTY:
                        continue
                    loss = _LOSS_NAMES.get(field, field)
                    what = REFUSED.get(loss, f"sample field {field!r} is not carried")
                    losses.refuse(loss, what, where, None, field)
                checked = values
            if row.attachments:  # only a log with attachments refers to them
                row = _resolved(row, where)
            name = f"{task}-{row.id}"
            build = model if epochs == 1 else f"{model}-epoch-{int(row.epoch or 1)}"
            first = firsts.get(name)
            if first is None:
                if not isinstance(row.input, (str, list)):
                    raise _error("'input' must be a text or a list of messages", where, "input")
                target = row.target
                targets = [target] if type(target) is str else _targets(target, where)
                first = firsts[name] = (row, targets)
            elif (name, build) in seen:
                epoch = int(row.epoch or 1)
                raise _error(f"sample {row.id!r} epoch {epoch} appears twice", where, "id")
            seen.add((name, build))
            add_name(name)
            add_build(build)
            add_target(first[1])
            add_row(row)
    except ImportFormatError:
        column.finish(rescored)  # an earlier sample's error comes first
        raise
    return epochs, firsts


def _resolved(row: Any, where: str) -> Any:
    """``row`` with every attachment it refers to in place (and no attachments left)."""
    attachments = as_mapping(row.attachments)
    changes = {
        field: _resolve(decode(getattr(row, field)), attachments, where)
        for field in row.__struct_fields__
        if field != "attachments"
    }
    return msgspec.structs.replace(row, **changes, attachments=None)


def _targets(target: Any, where: str) -> list[str]:
    if type(target) is str:
        return [target]
    targets = [target] if isinstance(target, str) else target
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise _error("'target' must be a text or a list of texts", where, "target")
    return targets


def _samples(
    firsts: Mapping[str, tuple[Any, list[str]]], recorded: Mapping[str, dict[str, tuple[Any, ...]]]
) -> tuple[Sample, ...]:
    """The samples, with what each epoch recorded decoded (the import checked all of it)."""
    with gc_paused(promote=True):
        return tuple(
            _sample(name, row, targets, {b: _results(v) for b, v in recorded[name].items()})
            for name, (row, targets) in firsts.items()
        )


def _results(values: tuple[Any, ...]) -> dict[str, Any]:
    """The per-epoch fields under their kebab names, decoded, leaving out the unset ones."""
    return {
        kebab: decode(value)
        for kebab, value in zip(_KEBAB, values, strict=True)
        if value is not None and value != _NULL
    }


def _expected(targets: list[str]) -> tuple[str | None, tuple[str, ...] | None]:
    """The sample's expected output and outputs for its targets."""
    if len(targets) == 1:
        return targets[0], None
    return (None, tuple(targets)) if targets else ("", None)


def _sample(name: str, row: Any, targets: list[str], results: dict[str, Any]) -> Sample:
    metadata = {
        key: value
        for key, value in (("inspect-metadata", row.metadata), ("inspect-choices", row.choices))
        if value
    }
    metadata["inspect-results"] = results
    expected, several = _expected(targets)
    return Sample(
        name=name,
        parameters=Parameters([row.input]),
        expected_output=expected,
        expected_outputs=several,
        metadata=metadata,
    )


class _Column:
    """What the samples (each epoch) hold that is read over the whole column: their answers,
    and the recorded scores the import re-scores."""

    def __init__(self, wheres: list[str]) -> None:
        self.wheres = wheres  # where each sample was read
        # per sample's epoch, in order, as the import adds them: name, build, targets, row
        self.names: list[str] = []
        self.builds: list[str] = []
        self.targets: list[list[str]] = []
        self.rows: list[Any] = []

    def finish(self, rescored: tuple[tuple[str, str, str, bool], ...]) -> dict[str, dict[str, str]]:
        """The answers by build and sample, after refusing the first sample (in order) with
        no answer or whose recorded score differs from its re-score."""
        texts, failed = answers(list(map(_OUTPUT_FIELD, self.rows)), self.wheres)
        if rescored:
            done = self.rows[: len(texts)] if failed else self.rows
            scores = recorded_scores(list(map(_SCORES_FIELD, done)))
            check_parity(rescored, self.names, self.targets, texts, scores, self.wheres)
        if failed is not None:
            raise failed
        return by_build(self.builds, self.names, texts)
