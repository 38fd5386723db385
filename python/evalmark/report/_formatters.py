"""The report formatter registry: built-in formats, ``register_formatter`` and the entry-point
group ``evalmark.report_formatters``.

A formatter is an object with ``render(report, **options) -> str``, or a plain function
``(report, **options) -> str``. Entry points in the group ``evalmark.report_formatters`` name a
formatter (the entry point's name is the format name); they are loaded the first time a format is
looked up that is not registered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalmark._plugins import load_entry_points

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = [
    "ENTRY_POINT_GROUP",
    "Formatter",
    "formatter_for_path",
    "get_formatter",
    "known_formatters",
    "register_formatter",
    "unregister_formatter",
]

ENTRY_POINT_GROUP = "evalmark.report_formatters"


@dataclass(frozen=True, slots=True)
class Formatter:
    """A named report format, the file extensions that select it, and its render function."""

    name: str
    extensions: tuple[str, ...]
    function: Callable[..., str]

    def render(self, report: Report, **options: Any) -> str:
        """The report as text in this format."""
        text = self.function(report, **options)
        if not isinstance(text, str):
            raise TypeError(
                f"report formatter {self.name!r} returned {type(text).__name__}, not str"
            )
        return text


_lock = threading.Lock()
_formatters: dict[str, Formatter] = {}
_entry_points_loaded = False


def register_formatter(
    name: str,
    function: Callable[..., str] | Any,
    *,
    extensions: Sequence[str] = (),
    replace: bool = False,
) -> Formatter:
    """Register ``function`` (or an object with ``render``) as the format ``name``; files whose
    extension is in ``extensions`` (e.g. ``(".csv",)``) are written with it. Registering an
    existing name is an error unless ``replace=True``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a formatter needs a non-empty name, got {name!r}")
    render = getattr(function, "render", None)
    call = render if callable(render) else function
    if not callable(call):
        raise TypeError(
            f"formatter {name!r} must be a function (report, **options) -> str or have render()"
        )
    exts = tuple(e if e.startswith(".") else "." + e for e in (x.lower() for x in extensions))
    formatter = Formatter(name, exts, call)
    with _lock:
        if name in _formatters and not replace:
            raise ValueError(
                f"a report formatter named {name!r} is already registered; pass replace=True "
                "to override it"
            )
        _formatters[name] = formatter
    return formatter


def unregister_formatter(name: str) -> None:
    """Forget the format ``name``."""
    with _lock:
        _formatters.pop(name, None)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for name, loaded in load_entry_points(
        entry_points(group=ENTRY_POINT_GROUP), "report formatter", skip=frozenset(_formatters)
    ):
        register_formatter(name, loaded, extensions=tuple(getattr(loaded, "extensions", ())))


def _ensure_builtins() -> None:
    if "markdown" in _formatters:
        return
    from evalmark.report._render import html, inspect_log, json, junit, markdown

    for name, function, exts in (
        ("markdown", markdown.render, (".md", ".markdown")),
        ("json", json.render, (".json",)),
        ("html", html.render, (".html", ".htm")),
        ("junit", junit.render, (".xml",)),
        ("inspect", inspect_log.render, (inspect_log.EXTENSION,)),
    ):
        if name not in _formatters:
            register_formatter(name, function, extensions=exts)


def known_formatters() -> dict[str, Formatter]:
    """Every known format by name (built-ins, registered and entry points)."""
    _ensure_builtins()
    _load_entry_points()
    with _lock:
        return dict(sorted(_formatters.items()))


_ALIASES = {"md": "markdown", "junit-xml": "junit", "junit_xml": "junit", "xml": "junit"}


def get_formatter(name: str) -> Formatter:
    """The formatter named ``name``; KeyError listing the known ones."""
    _ensure_builtins()
    name = _ALIASES.get(name, name)
    with _lock:
        found = _formatters.get(name)
    if found is None:
        _load_entry_points()
        with _lock:
            found = _formatters.get(name)
    if found is None:
        raise KeyError(
            f"no report format named {name!r}; known formats: {', '.join(known_formatters())}. "
            "Register one with evalmark.report.register_formatter"
        )
    return found


def formatter_for_path(path: Path) -> Formatter:
    """The formatter whose extension ends ``path``'s name, the longest such extension first
    (``x.inspect.json`` is an inspect log, ``x.json`` a JSON report)."""
    name = path.name.lower()
    matches = [
        (len(ext), formatter)
        for formatter in known_formatters().values()
        for ext in formatter.extensions
        if name.endswith(ext) and len(name) > len(ext)
    ]
    if matches:
        return max(matches, key=lambda match: match[0])[1]
    known = sorted({e for f in known_formatters().values() for e in f.extensions})
    raise ValueError(
        f"cannot tell the report format from {path.name!r}; use one of the extensions "
        f"{', '.join(known)} or pass format=..."
    )
