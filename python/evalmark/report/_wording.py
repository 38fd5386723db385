"""The wording every printed message of evalmark shares: counted nouns (``1 report``,
``2 reports``) and a gate condition's figures. Imports nothing, so every layer above the
report (renderers, gates, the pytest plugin's session, the command line) can use it; and
:func:`writable`, the one rule for text that UTF-8 cannot store."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark.report._gate_result import GateResult

__all__ = [
    "LONE_SURROGATE",
    "gate_cells",
    "gate_relation",
    "plural",
    "writable",
    "writable_values",
]

# A Python str holds a surrogate code point only alone (a pair is one astral character).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def writable(text: str) -> str:
    """``text`` with every lone surrogate (an application's output decoded from a broken
    ``\\ud800`` escape, say), which UTF-8 cannot store, replaced by U+FFFD; every report format
    writes it so, and any other text is returned as it is."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


def writable_values(value: Any) -> Any:
    """Plain values (JSON-like) with :func:`writable` applied to every text and key."""
    if isinstance(value, str):
        return writable(value)
    if isinstance(value, dict):
        return {writable(str(k)): writable_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [writable_values(v) for v in value]
    return value


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` with its noun: ``1 report``, ``2 reports``, ``0 failing samples``
    (``many`` defaults to ``one`` + "s")."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def gate_cells(gate: GateResult) -> tuple[str, str, str]:
    """A gate condition's measured value, its requirement and its verdict as table cells:
    ``75.0%``, ``>= 90%``, ``FAILED``; a count: ``2``, ``<= 0``, ``FAILED``."""
    verdict = "passed" if gate.passed else "FAILED"
    if gate.unit == "count":
        return f"{gate.actual:g}", f"<= {gate.required:g}", verdict
    return f"{gate.actual:.1%}", f">= {gate.required * 100:g}%", verdict


def gate_relation(gate: GateResult) -> str:
    """How the measure stands to the requirement, for one line of text: ``< 90%`` when a
    pass rate missed 90%, ``>= 90%`` when it met it; ``> 0`` / ``<= 0`` for a count."""
    if gate.unit == "count":
        return f"{'<=' if gate.passed else '>'} {gate.required:g}"
    return f"{'>=' if gate.passed else '<'} {gate.required * 100:g}%"
