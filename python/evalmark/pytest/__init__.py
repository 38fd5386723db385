"""evalmark under pytest: declarative evaluation tests and the plugin.

``from evalmark.pytest import evaluation_test, strategy_test, per_sample, register`` gives the
test helpers (:mod:`evalmark.pytest._helpers`, :mod:`evalmark.pytest._registry`). The plugin is
:mod:`evalmark.pytest._plugin`, which pytest loads through its entry point; its fixtures are in
:mod:`evalmark.pytest._fixtures` and the end-of-session report in :mod:`evalmark.pytest._session`.
Nothing here is imported until a name is asked for, so loading the plugin stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark.pytest._helpers import evaluation_test, per_sample, strategy_test
    from evalmark.pytest._registry import register

__all__ = [
    "evaluation_test",
    "per_sample",
    "register",
    "strategy_test",
]


_HOME = {"register": "_registry"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = importlib.import_module(f"evalmark.pytest.{_HOME.get(name, '_helpers')}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evalmark.pytest' has no attribute {name!r}")
