"""The last passing report survives a failed run.

Before a run whose gate failed writes its reports, the reports it replaces are looked at: when
their JSON report says the gate passed, each of them is copied beside itself as
``NAME.last-pass.EXT`` (``support-healthy.last-pass.json``) and the run says so. A later passing
run removes those copies, since its own reports are then the last passing ones. So a
``.last-pass`` file exists exactly while the newest report of its name is a failing one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from evalmark._files.atomic import write_atomically

__all__ = ["last_pass_path", "preserve_last_pass"]

LAST_PASS = ".last-pass"


def last_pass_path(path: Path) -> Path:
    """Where the last passing version of the report ``path`` is kept."""
    return path.with_name(path.stem + LAST_PASS + path.suffix)


def preserve_last_pass(paths: Sequence[Path], passed: bool) -> str:
    """Keep (or, for a passing run, drop) the last passing copies of the reports ``paths``,
    before a run whose verdict is ``passed`` overwrites them; returns what to tell the user
    (empty when there is nothing to say)."""
    if passed:
        for path in paths:
            last_pass_path(path).unlink(missing_ok=True)
        return ""
    existing = [path for path in paths if path.exists()]
    if not existing:
        return ""
    verdict = _previous_verdict(existing)
    if verdict is None:
        return (
            f"note: this failed run replaced {existing[0]}, whose gate verdict is unknown (no "
            "JSON report beside it); add json to the report formats to keep the last passing one"
        )
    if verdict:
        for path in existing:
            write_atomically(last_pass_path(path), path.read_bytes())
        return (
            f"note: this failed run replaced a passing report; the passing one is kept as "
            f"{last_pass_path(existing[0])}{_and_more(existing)}"
        )
    kept = [last_pass_path(p) for p in existing if last_pass_path(p).exists()]
    if kept:
        return f"note: the last passing report is still {kept[0]}{_and_more(kept)}"
    return ""


def _and_more(paths: Sequence[Path]) -> str:
    return f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""


def _previous_verdict(paths: Sequence[Path]) -> bool | None:
    """True when every JSON report among ``paths`` records a passing gate, False when one
    records a failing one, None when there is no readable JSON report."""
    verdicts = []
    for path in paths:
        if path.suffix != ".json":
            continue
        try:
            document = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        gates = document.get("gate") if isinstance(document, dict) else None
        if isinstance(gates, list):
            verdicts.append(all(isinstance(g, dict) and g.get("passed") is True for g in gates))
    if not verdicts:
        return None
    return all(verdicts)
