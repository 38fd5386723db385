"""The offline promise, enforced: a network guard for evaluation runs.

    import evalmark

    with evalmark.offline():                  # loopback and unix sockets still work
        report = scorer.evaluate(samples, answer, TokenF1(0.5))

    @evalmark.offline(allow=["10.0.0.0/8"])   # a decorator too (sync and async functions)
    def job(): ...

Inside a guard every outbound connection attempt from Python (``socket.connect`` and
``connect_ex``, ``socket.create_connection``, datagrams sent to an address, sends to a peer
that is not allowed, name lookups of hosts that are not local, from any thread and from
asyncio) raises
:class:`~evalmark.errors.NetworkBlockedError` naming the host, the port and the line of code
that asked, before anything leaves the machine. ``allow=[...]`` replaces the default allowlist
(``"loopback"``, ``"unix"``) with hosts, networks and unix sockets (:mod:`evalmark.offline._policy`
lists the forms); ``allow=[]`` blocks loopback too, ``allow=["*"]`` lifts an outer guard.

Runs switch the guard on by themselves (:func:`evalmark.offline._run.decide`): ``evalmark run``
in replay mode (its default), under ``CI``, with ``--offline`` or ``EVALMARK_OFFLINE=1``; the
pytest plugin with ``--evalmark-offline`` (see :mod:`evalmark.offline._pytest_plugin`). Sends
on sockets connected before the guard opened are checked against their peer, and calls that
step around the patched functions into the C socket module are caught by an audit hook. What
it cannot see: subprocesses, and C extensions that open their own sockets; for those,
``evalmark run --isolate-network`` runs in a network namespace (docs/offline.md).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable

from evalmark.offline._guard import BlockedAttempt, attempts
from evalmark.offline._policy import Policy
from evalmark.offline._run import Guard, active, find_blocked, offline

__all__ = [
    "BlockedAttempt",
    "Policy",
    "active",
    "attempts",
    "find_blocked",
    "offline",
]


# The package is also the guard factory: `evalmark.offline(...)` works whether the name resolves
# to this module (after `import evalmark.offline`) or to the function.
class _CallableModule(types.ModuleType):
    def __call__(
        self,
        allow: Iterable[str] | None = None,
        *,
        reason: str = "inside evalmark.offline()",
        hint: str | None = None,
    ) -> Guard:
        return offline(allow, reason=reason, hint=hint)


sys.modules[__name__].__class__ = _CallableModule
