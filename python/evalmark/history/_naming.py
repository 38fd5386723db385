"""One name per check in the history, whether a suite run or a pytest session produced it.

The rule: a check is named as a suite file names it, by its ``name`` when one was given, else
by its kind (``token-f1``, ``relevancy``). A suite run already names its checks so. A check
built in Python without a name carries its class's default name instead (``TokenF1``,
``Judge(relevancy)``, ``TrajectoryMatch(strict)``); :func:`check_name` turns such a default
back into the kind it stands for, so the two histories line up. Any other name is kept as is.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["check_name"]

# Default names that do not spell their kind word for word.
_IRREGULAR = {"JsonKeysMatch": "json-keys"}
_CAMEL = re.compile(r"[A-Z][a-z]*[0-9]*|[0-9]+")
_DEFAULT = re.compile(r"^(?P<base>[A-Z][A-Za-z0-9]*)(?:\((?P<inner>[^()]*)\))?$")


def _is_kind(name: str) -> bool:
    from evalmark.strategies._registry import STRATEGY_KINDS

    return name in STRATEGY_KINDS


@lru_cache(maxsize=1024)
def check_name(name: str) -> str:
    """The history's name of a check named ``name`` in a report: the kind a class's default
    name stands for (``TokenF1`` -> ``token-f1``, ``Judge(relevancy)`` -> ``relevancy``), or
    ``name`` itself."""
    match = _DEFAULT.match(name)
    if match is None:
        return name
    base, inner = match["base"], match["inner"]
    if base == "Judge" and inner is not None:
        return inner if _is_kind(inner) else name
    if base in _IRREGULAR:
        return _IRREGULAR[base]
    words = _CAMEL.findall(base)
    if "".join(words) != base:
        return name
    kind = "-".join(word.lower() for word in words)
    return kind if _is_kind(kind) else name
