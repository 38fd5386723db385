"""evalmark under pytest: declarative evaluation tests and the plugin.

``from evalmark.pytest import evaluation_test, strategy_test, per_sample, register`` gives the
test helpers (:mod:`evalmark.pytest.helpers`); the plugin itself is
:mod:`evalmark.pytest.plugin`, which pytest loads through its entry point. Nothing here is
imported until a name is asked for, so loading the plugin stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark.pytest.helpers import (
        RegisteredReport,
        evaluation_test,
        per_sample,
        register,
        registered_reports,
        strategy_test,
    )

__all__ = [
    "RegisteredReport",
    "evaluation_test",
    "per_sample",
    "register",
    "registered_reports",
    "strategy_test",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(importlib.import_module("evalmark.pytest.helpers"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evalmark.pytest' has no attribute {name!r}")
