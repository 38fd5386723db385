"""The error of an outbound network call refused by an offline run."""

from __future__ import annotations

from evalmark.errors._root import EvalmarkError

__all__ = ["NetworkBlockedError"]


class NetworkBlockedError(EvalmarkError, RuntimeError):
    """An outbound network call in an offline run, refused before any packet was sent.

    Deliberately not an ``OSError`` (nor ``ConnectionError``): HTTP stacks turn an ``OSError``
    from ``connect`` into their own connection error and retry it (httpcore's connect retries,
    urllib3's ``Retry``, the OpenAI SDK's retry loop over ``httpx.RequestError``, the address
    loops of ``socket.create_connection`` and asyncio), so the run would stall in back-off and
    end in a wrapped error. A ``RuntimeError`` passes through them unchanged on the first try.

    Attributes: ``host``, ``port`` (None when there is none, e.g. a name lookup or a unix
    socket), ``operation`` (``"connect"``, ``"resolve"``, ``"send"``, or ``"socket"`` for
    opening a raw or packet socket), ``location`` (the ``file:line`` of the code that asked,
    or ``"<unknown>"``), ``reason`` (why the run is offline) and ``hint`` (how to record the
    calls instead, or allow the host).
    """

    def __init__(
        self,
        *,
        host: str,
        port: int | None,
        operation: str,
        location: str,
        reason: str,
        hint: str,
    ) -> None:
        self.host = host
        self.port = port
        self.operation = operation
        self.location = location
        self.reason = reason
        self.hint = hint
        super().__init__(f"{self.summary}. {hint}")

    @property
    def target(self) -> str:
        """``host:port`` (``[v6]:port`` for IPv6), or the host alone when there is no port."""
        return self.format_target(self.host, self.port)

    @staticmethod
    def format_target(host: str, port: int | None) -> str:
        """``host:port`` (``[v6]:port`` for IPv6), or ``host`` alone when ``port`` is None."""
        if port is None:
            return host
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    @property
    def what(self) -> str:
        """What was blocked and from where: ``connection to host:443 from app.py:12 (answer)``."""
        phrase = _BLOCKED_PHRASES.get(self.operation, self.operation)
        return f"{phrase} {self.target} from {self.location}"

    @property
    def summary(self) -> str:
        """One line without the hint: what was blocked, from where, and why."""
        return f"network blocked: {self.what} (evalmark runs offline: {self.reason})"

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments: rebuild through a helper so the error pickles (xdist, Ray).
        return (
            _network_blocked,
            (self.host, self.port, self.operation, self.location, self.reason, self.hint),
        )


_BLOCKED_PHRASES = {
    "connect": "connection to",
    "resolve": "name lookup of",
    "send": "data sent to",
    "socket": "opening a raw socket:",
}


def _network_blocked(
    host: str, port: int | None, operation: str, location: str, reason: str, hint: str
) -> NetworkBlockedError:
    return NetworkBlockedError(
        host=host, port=port, operation=operation, location=location, reason=reason, hint=hint
    )
