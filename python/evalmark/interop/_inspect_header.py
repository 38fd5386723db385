"""An inspect_ai log's own fields as the importer reads them: its version and status, the
task and model that name the samples and builds, the scorers it re-scores, and what it keeps
verbatim."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._inspect_graded import graded_check, is_graded
from evalmark.interop._model import Losses, as_mapping
from evalmark.strategies._inspect import INSPECT_LOCATIONS

__all__ = ["Header", "kept", "read_header"]

# The log's own fields kept verbatim in ``source.json`` (the ``.eval`` zip: its header and
# ``reductions.json``; its ``summaries.json`` and ``_journal/`` repeat the samples).
_KEPT_LOG = ("eval", "plan", "results", "stats", "reductions", "tags", "metadata", "invalidated")
_SCORERS = {"match": "match", "inspect_ai/match": "match"}
_SCORERS |= {"includes": "includes", "inspect_ai/includes": "includes"}


class Header:
    """What the importer reads of a log's own fields: the ``task`` and ``model`` naming its
    samples and builds, the suite's check ``entries`` for its scorers (in the log's order),
    the ``checks`` it re-scores (inspect-scorer options by scorer name) and ``rescored``,
    each of those as (scorer name, kind, location, ignore case)."""

    def __init__(
        self, task: str, model: str, entries: list[dict[str, Any]], checks: dict[str, Any]
    ) -> None:
        self.task = task
        self.model = model
        self.entries = tuple(entries)
        self.checks = checks
        self.rescored = tuple(
            (name, o["scorer"], o.get("location", "end"), o["ignore-case"])
            for name, o in checks.items()
        )


def read_header(header: Mapping[str, Any], losses: Losses, where: str) -> Header:
    """Check the log's version and status (refusing what ``losses`` does not allow) and read
    its task, model and re-scored scorers."""
    if header.get("version") != 2:
        raise ImportFormatError(
            [
                Problem(
                    f"log version {header.get('version')!r} is not read (version 2 is)",
                    path=where,
                    record="version",
                )
            ]
        )
    if header.get("status") != "success":
        losses.refuse(
            "status",
            f"the run's status is {header.get('status')!r}, not 'success': its samples may be "
            "incomplete",
            where,
            None,
            "status",
        )
    spec = as_mapping(header.get("eval"))
    task = str(spec.get("task") or "inspect").rpartition("/")[2]
    model = str(spec.get("model") or "model").replace("/", "-")
    entries: list[dict[str, Any]] = []
    checks = _checks(header, losses, where, entries)
    return Header(task, model, entries, checks)


def kept(header: Mapping[str, Any]) -> dict[str, Any]:
    """The log's own fields kept verbatim (those that hold something)."""
    return {k: header[k] for k in _KEPT_LOG if header.get(k) not in (None, [], {})}


def _checks(
    header: Mapping[str, Any], losses: Losses, where: str, entries: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The re-scored scorers by their name in the log: their inspect-scorer options; the
    suite's check entries of every scorer carried go to ``entries``, in order."""
    checks: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for entry in as_mapping(header.get("results")).get("scores") or []:
        name, scorer = str(entry.get("name")), str(entry.get("scorer", entry.get("name")))
        params = dict(as_mapping(entry.get("params")))
        kind = _SCORERS.get(scorer)
        if name in seen:
            continue
        seen.add(name)
        if is_graded(scorer):
            judged = graded_check(name, scorer, params, losses, where)
            if judged is not None:
                entries.append(judged)
            continue
        if kind is None:
            losses.refuse(
                f"scorer:{scorer}",
                f"scorer {scorer!r} cannot be re-scored offline by evalmark (only match and "
                "includes are; its recorded scores stay in the metadata)",
                where,
                None,
                "results.scores",
            )
            continue
        allowed = {"location", "ignore_case", "numeric"} if kind == "match" else {"ignore_case"}
        unknown = sorted(set(params) - allowed)
        if params.get("numeric"):
            unknown.append("numeric")
        if unknown or params.get("location", "end") not in INSPECT_LOCATIONS:
            losses.refuse(
                f"scorer:{scorer}",
                f"scorer {scorer!r} with {', '.join(unknown) or 'its location'} is not "
                "reproduced (numeric match and other options are not)",
                where,
                None,
                "results.scores",
            )
            continue
        options: dict[str, Any] = {"scorer": kind, "name": f"inspect-{name}"}
        if kind == "match":
            options["location"] = params.get("location", "end")
        options["ignore-case"] = bool(params.get("ignore_case", True))
        checks[name] = options
        entries.append({"inspect-scorer": options})
    return checks
