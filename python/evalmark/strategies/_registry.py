"""The strategy kinds: the one list of the checks a suite file (or any other text) can name.

Each kind has a name (``token-f1``, ``relevancy``...), a one-line summary, the options it
accepts (each with a checker that says what is wrong with a value), the judge prompt it uses
when a judge decides it, and a factory that builds the engine strategy. Suite files
(:mod:`evalmark.suite`: their loader, runner and JSON Schema, hence ``evalmark run``) read
this registry; the judged kinds are the judge prompts of :data:`evalmark.models._prompts.PROMPTS`.

Add a kind with :func:`register_strategy`; a package can also declare kinds under the entry
point group ``evalmark.strategies`` (the entry point's name is the kind; it loads a
:class:`StrategyKind`, or a factory), read the first time a kind is looked up that is not
registered::

    from evalmark.strategies._kinds import check_text
    from evalmark.strategies._registry import register_strategy

    register_strategy(
        "starts-with",
        lambda options, judge: StartsWith(options.get("prefix", ""), name=options["name"]),
        summary="the output starts with the prefix",
        options={"prefix": check_text},
    )

A factory is called as ``factory(options, judge)``: ``options`` holds the validated options
with ``name`` always set (the check's name in reports, by default the kind); ``judge`` is the
suite's judge model (None for a suite without judged checks).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any

from evalmark._plugins import load_entry_points
from evalmark.strategies._builtin_kinds import KINDS
from evalmark.strategies._kinds import Checker, StrategyFactory, StrategyKind

__all__ = [
    "ENTRY_POINT_GROUP",
    "STRATEGY_KINDS",
    "StrategyKind",
    "build_strategy",
    "get_strategy_kind",
    "register_strategy",
    "unregister_strategy",
]

ENTRY_POINT_GROUP = "evalmark.strategies"

_lock = threading.RLock()
_kinds: dict[str, StrategyKind] = {kind.name: kind for kind in KINDS}
_entry_points_loaded = False


def register_strategy(
    kind: str | StrategyKind,
    factory: StrategyFactory | None = None,
    *,
    summary: str = "",
    options: Mapping[str, Checker] | None = None,
    prompt: str | None = None,
    replace: bool = False,
) -> StrategyKind:
    """Register a strategy kind: its name and ``factory(options, judge) -> strategy`` (or a
    ready :class:`StrategyKind`). ``options`` maps each option the kind accepts to a checker
    (``check_fraction``...); ``prompt`` names the judge prompt of a judged kind. Registering
    an existing name is an error unless ``replace=True``. Returns the kind."""
    if isinstance(kind, StrategyKind):
        entry = kind
    else:
        if not isinstance(kind, str) or not kind.strip():
            raise ValueError(f"a strategy kind needs a non-empty name, got {kind!r}")
        if not callable(factory):
            raise TypeError(
                f"strategy kind {kind!r}: the factory must be a function (options, judge) -> "
                f"strategy, got {factory!r}"
            )
        entry = StrategyKind(kind, summary or kind, factory, dict(options or {}), prompt)
    with _lock:
        if entry.name in _kinds and not replace:
            raise ValueError(
                f"a strategy kind named {entry.name!r} is already registered; pass "
                "replace=True to override it"
            )
        _kinds[entry.name] = entry
    return entry


def unregister_strategy(kind: str) -> None:
    """Forget the strategy kind ``kind``."""
    with _lock:
        _kinds.pop(kind, None)


def _load_entry_points() -> None:
    global _entry_points_loaded
    with _lock:
        if _entry_points_loaded:
            return
        _entry_points_loaded = True
        for name, loaded in load_entry_points(
            entry_points(group=ENTRY_POINT_GROUP), "strategy", skip=frozenset(_kinds)
        ):
            if isinstance(loaded, StrategyKind):
                register_strategy(loaded)
            else:
                summary = str(getattr(loaded, "summary", "") or name)
                register_strategy(name, loaded, summary=summary)


class _Kinds(Mapping[str, StrategyKind]):
    """The registered kinds, read-only and always current (entry points loaded on demand)."""

    def __getitem__(self, kind: str) -> StrategyKind:
        found = _kinds.get(kind)
        if found is None:
            _load_entry_points()
            found = _kinds.get(kind)
        if found is None:
            raise KeyError(kind)
        return found

    def __iter__(self) -> Iterator[str]:
        _load_entry_points()
        with _lock:
            return iter(list(_kinds))

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __repr__(self) -> str:
        return f"STRATEGY_KINDS({', '.join(self)})"


STRATEGY_KINDS: Mapping[str, StrategyKind] = _Kinds()


def get_strategy_kind(kind: str) -> StrategyKind:
    """The kind named ``kind``; KeyError listing the known kinds."""
    try:
        return STRATEGY_KINDS[kind]
    except KeyError:
        raise KeyError(
            f"no strategy kind named {kind!r}; the known kinds are {', '.join(STRATEGY_KINDS)}. "
            "Register one with evalmark.strategies._registry.register_strategy"
        ) from None


def build_strategy(kind: str, options: Mapping[str, Any] | None = None, judge: Any = None) -> Any:
    """The engine strategy of kind ``kind`` with ``options`` (already checked)."""
    return get_strategy_kind(kind).build(options or {}, judge)
