"""evalmark: offline-first, deterministic evaluation for LLM applications.

Every public name is imported on first use, through the one table below, so ``import evalmark``
loads nothing heavy (no numpy, no Rust extension) and the pytest plugin and the command line
start quickly. The same table gives ``__all__`` and, through ``tools/gen_init_stub.py``, the
type stub ``__init__.pyi``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

# module -> the public names it defines, each imported when first asked for
EXPORTS: dict[str, tuple[str, ...]] = {
    "evalmark._core": ("__version__",),
    "evalmark.samples._samples": (
        "load_samples",
        "Parameters",
        "register_sample_loader",
        "Sample",
        "SampleLoader",
        "Samples",
        "unregister_sample_loader",
        "write_samples",
    ),
    "evalmark.samples._testcase": (
        "Conversation",
        "load_conversations",
        "load_test_cases",
        "ReasoningStep",
        "TestCase",
        "TokenUsage",
        "ToolCall",
        "write_conversations",
        "write_test_cases",
    ),
    "evalmark.results._results": (
        "EvaluationFault",
        "EvaluationResult",
    ),
    "evalmark.engine._scorer": (
        "Evaluation",
        "Scorer",
    ),
    "evalmark.conversation._simulate": (
        "asimulate",
        "simulate",
    ),
    "evalmark.conversation._report": ("score_conversations",),
    "evalmark.conversation._users": ("SimulatedUser",),
    "evalmark.suite._loader": ("load_suite",),
    "evalmark.noise._correction": ("corrected_pass_rate",),
    "evalmark.noise._ppi": ("ppi_mean",),
    "evalmark.suite._runner": ("run_suite",),
    "evalmark.offline": ("offline",),
    "evalmark.telemetry._sampling": ("monitor",),
}

_LAZY: dict[str, str] = {name: module for module, names in EXPORTS.items() for name in names}
_SUBMODULES = ("strategies",)

__all__ = sorted([*_LAZY, *_SUBMODULES], key=str.lower)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        try:
            value = getattr(importlib.import_module(module), name)
        except ModuleNotFoundError as exc:  # only ``__version__`` imports the extension itself
            if exc.name != "evalmark._core":
                raise
            from evalmark.errors import ExtensionNotBuiltError

            raise ExtensionNotBuiltError(__path__[0]) from None
    elif not name.startswith("__") and importlib.util.find_spec(f"evalmark.{name}") is not None:
        value = importlib.import_module(f"evalmark.{name}")  # any submodule, on first use
    else:
        raise AttributeError(f"module 'evalmark' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    import pkgutil

    submodules = {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}
    return sorted(set(globals()) | set(_LAZY) | submodules)
