"""The network guard and when runs are offline: :class:`Guard` (what ``evalmark.offline()``
returns), :func:`decide` (whether a run is offline, and why), :func:`guard_run` and
:func:`blocked_note` for the command line and the pytest plugin. The face is
:mod:`evalmark.offline`."""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from evalmark.errors import NetworkBlockedError
from evalmark.offline._guard import BlockedAttempt, Entry, active_entry
from evalmark.offline._opening import pop as _pop
from evalmark.offline._opening import push as _push
from evalmark.offline._policy import DEFAULT_ALLOW, Policy, parse_allow

OFFLINE_ENV = "EVALMARK_OFFLINE"
ALLOW_ENV = "EVALMARK_OFFLINE_ALLOW"
# The same names and rule as evalmark.models._modes (MODE_ENV, ci_is_set), repeated here so the
# guard and the pytest plugin load without the models package; a test keeps them equal.
MODE_ENV = "EVALMARK_RECORD_MODE"
_FALSE = frozenset({"", "0", "false", "no", "off"})
_TRUE = frozenset({"1", "true", "yes", "on"})

_F = TypeVar("_F", bound=Callable[..., Any])


def _ci_is_set(environ: Mapping[str, str]) -> bool:
    return environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def record_hint(command: str | None = None, *, ci: bool = False) -> str:
    """How to get past a blocked call: record it once, or allow the host."""
    record = command or f"{MODE_ENV}=record-missing <your command>"
    where = " outside CI (CI forces replay)" if ci else ""
    return (
        f"To record the calls once with the real network, run `{record}`{where} and commit the "
        "cassettes (pytest: --evalmark-record-mode=record-missing; evalmark run: --record-mode "
        "record-missing); to let a host through, allow it: evalmark.offline(allow=[...]), "
        f"{ALLOW_ENV}=host, or @pytest.mark.evalmark_network on the test"
    )


class Guard:
    """A network guard: a context manager, a decorator, or installed for the whole process.

    ``with guard:`` blocks for the block's duration, ``@guard`` for each call of a function
    (awaited coroutines included), ``guard.install()`` until ``guard.uninstall()``. A guard may
    be entered again while open and from several threads; the innermost open guard decides for
    the whole process.
    """

    def __init__(
        self,
        allow: Iterable[str] | None = None,
        *,
        reason: str = "inside evalmark.offline()",
        hint: str | None = None,
    ) -> None:
        self.policy: Policy = parse_allow(allow)
        self.reason = reason
        self.hint = hint if hint is not None else record_hint()
        self._entry = Entry(self.policy, reason, self.hint)
        self._tokens: list[tuple[int, object]] = []
        self._installed: object | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ context manager

    def __enter__(self) -> Guard:
        token = _push(self._entry)
        with self._lock:
            self._tokens.append((threading.get_ident(), token))
        return self

    def __exit__(self, *exc: object) -> None:
        me = threading.get_ident()
        with self._lock:
            for index in range(len(self._tokens) - 1, -1, -1):
                if self._tokens[index][0] == me:
                    token = self._tokens.pop(index)[1]
                    break
            else:
                raise RuntimeError("evalmark.offline: __exit__ without a matching __enter__")
        _pop(token)

    # ------------------------------------------------------------------ decorator

    def __call__(self, function: _F) -> _F:
        """Run ``function`` (sync or async) under this guard at each call."""
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def guarded_async(*args: Any, **kwargs: Any) -> Any:
                with self:
                    return await function(*args, **kwargs)

            return cast(_F, guarded_async)

        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            with self:
                return function(*args, **kwargs)

        return cast(_F, guarded)

    # ------------------------------------------------------------------ process-wide

    def install(self) -> Guard:
        """Open this guard until :meth:`uninstall` (once; a second call does nothing)."""
        with self._lock:
            if self._installed is None:
                self._installed = _push(self._entry)
        return self

    def uninstall(self) -> None:
        """Close what :meth:`install` opened."""
        with self._lock:
            token, self._installed = self._installed, None
        if token is not None:
            _pop(token)

    @property
    def installed(self) -> bool:
        """True between :meth:`install` and :meth:`uninstall`."""
        return self._installed is not None

    def __repr__(self) -> str:
        return f"Guard(allow={list(self.policy.entries)!r}, reason={self.reason!r})"


def offline(
    allow: Iterable[str] | None = None,
    *,
    reason: str = "inside evalmark.offline()",
    hint: str | None = None,
) -> Guard:
    """A network guard (a context manager and a decorator); see :class:`Guard`.

    ``allow``: the allowlist, default ``("loopback", "unix")``; ``[]`` blocks everything,
    ``["*"]`` nothing. ``reason`` and ``hint`` go into the :class:`NetworkBlockedError`."""
    return Guard(allow, reason=reason, hint=hint)


def active() -> bool:
    """True when a guard is open (and blocks something)."""
    entry = active_entry()
    return entry is not None and not entry.policy.allow_all


# --------------------------------------------------------------------------- when runs are offline


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a run is offline, and why (the reason the error messages quote)."""

    enabled: bool
    reason: str
    ci: bool = False


def _env_flag(environ: Mapping[str, str]) -> bool | None:
    raw = environ.get(OFFLINE_ENV)
    if raw is None or not raw.strip():
        return None
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{OFFLINE_ENV}={raw!r}: use 1 to run offline or 0 to allow the network")


def decide(
    *,
    flag: bool | None = None,
    record_mode: str | None = None,
    environ: Mapping[str, str] | None = None,
    default: bool = True,
    flag_names: tuple[str, str] = ("--offline", "--no-offline"),
) -> Decision:
    """Whether a run should be offline. The first rule that applies decides:

    1. ``flag`` (``--offline`` / ``--no-offline``, ``--evalmark-offline=on|off``; the
       reason quotes ``flag_names``, the spelling that sets it on and off);
    2. ``EVALMARK_OFFLINE`` (1/true/yes/on or 0/false/no/off);
    3. ``CI`` set: offline (CI replays cassettes);
    4. the record mode (``record_mode``, else ``EVALMARK_RECORD_MODE``): offline in replay,
       online in record-missing, rewrite and off;
    5. ``default`` (the CLI: True, replay being its default mode; the pytest plugin: False).
    """
    env = os.environ if environ is None else environ
    ci = _ci_is_set(env)
    if flag is not None:
        return Decision(flag, f"{flag_names[0] if flag else flag_names[1]} was given", ci)
    from_env = _env_flag(env)
    if from_env is not None:
        return Decision(from_env, f"{OFFLINE_ENV}={env[OFFLINE_ENV].strip()}", ci)
    if ci:
        return Decision(True, "CI is set", ci)
    mode = record_mode
    source = "the record mode"
    if mode is None and env.get(MODE_ENV, "").strip():
        mode = env[MODE_ENV]
        source = MODE_ENV
    if mode is not None:
        normalized = str(mode).strip().lower().replace("_", "-")
        if normalized == "replay":
            return Decision(True, f"{source} is replay", ci)
        return Decision(False, f"{source} is {normalized}", ci)
    if default:
        return Decision(True, "the record mode is replay, the default", ci)
    return Decision(False, "no record mode was chosen", ci)


def environment_allow(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The allowlist of a run: loopback and unix sockets, plus ``EVALMARK_OFFLINE_ALLOW``
    (entries separated by commas)."""
    env = os.environ if environ is None else environ
    extra = [part.strip() for part in env.get(ALLOW_ENV, "").split(",") if part.strip()]
    allow = (*DEFAULT_ALLOW, *extra)
    try:
        parse_allow(allow)
    except ValueError as exc:
        raise ValueError(f"{ALLOW_ENV}: {exc}") from None
    return allow


@contextmanager
def guard_run(
    *,
    flag: bool | None = None,
    record_mode: str | None = None,
    command: str | None = None,
    environ: Mapping[str, str] | None = None,
    default: bool = True,
) -> Iterator[Guard | None]:
    """Guard a run when :func:`decide` says it is offline; yields the guard, or None.

    ``command`` is the command that records instead (quoted in the error's hint)."""
    decision = decide(flag=flag, record_mode=record_mode, environ=environ, default=default)
    if not decision.enabled:
        yield None
        return
    guard = Guard(
        environment_allow(environ),
        reason=decision.reason,
        hint=record_hint(command, ci=decision.ci),
    )
    with guard:
        yield guard


# --------------------------------------------------------------------------- reporting


def find_blocked(error: BaseException | None) -> NetworkBlockedError | None:
    """The :class:`NetworkBlockedError` behind ``error``: itself, its cause or context, an
    ``.error`` it carries (a judge failure) or a member of an exception group."""
    seen: set[int] = set()
    pending: list[object] = [error]
    while pending:
        item = pending.pop(0)
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, NetworkBlockedError):
            return item
        pending.extend([item.__cause__, item.__context__, getattr(item, "error", None)])
        if isinstance(item, BaseExceptionGroup):
            pending.extend(item.exceptions)
    return None


def _blocked_cases(reports: Iterable[Any]) -> list[tuple[str, NetworkBlockedError]]:
    cases: list[tuple[str, NetworkBlockedError]] = []
    for report in reports:
        prefix = f"{report.name}/" if getattr(report, "name", None) else ""
        for row in report.failing_rows():
            for result in row.results.values():
                error = getattr(result, "error", None)
                found = find_blocked(getattr(error, "exception", None))
                if found is not None:
                    cases.append((prefix + row.name, found))
                    break
    return cases


def blocked_note(
    reports: Iterable[Any],
    *,
    command: str | None = None,
    swallowed: Sequence[BlockedAttempt] | None = None,
    limit: int = 10,
) -> str:
    """What a run prints when its cases were refused the network: each case with the host and
    the line that asked, then how to record. Empty when nothing was blocked.

    ``reports`` are engine reports (anything with ``name`` and ``failing_rows()``);
    ``swallowed``: the guard's :func:`~evalmark.offline.attempts` of the run, to also count
    refused calls the application caught itself."""
    cases = _blocked_cases(reports)
    attempts_seen = list(swallowed or ())
    if not cases and not attempts_seen:
        return ""
    first = cases[0][1] if cases else None
    lines = []
    if cases:
        lines.append(
            f"network blocked in {len(cases)} case(s) (evalmark runs offline: "
            f"{first.reason if first else 'a guard is open'}):"
        )
        for name, error in cases[:limit]:
            lines.append(f"  {name}: {error.what}")
        if len(cases) > limit:
            lines.append(f"  ... and {len(cases) - limit} more")
    reported = {(e.host, e.port, e.location) for _, e in cases}
    silent = [a for a in attempts_seen if (a.host, a.port, a.location) not in reported]
    if silent:
        lines.append(
            f"{len(silent)} more refused call(s) were caught by the application itself, e.g. "
            f"{silent[0].what}"
        )
    lines.append(first.hint if first is not None else record_hint(command))
    return "\n".join(lines) + "\n"
