"""Record modes, and how the effective mode is chosen."""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping

import msgspec

MODE_ENV = "EVALMARK_RECORD_MODE"
CI_FORCED = "forced because CI is set"
BY_ARGUMENT = "set by the mode argument"


class RecordMode(enum.StrEnum):
    """How a cassette treats calls.

    ``replay``: answer only from the cassette; a miss raises ``CassetteMiss``.
    ``record-missing``: replay what is recorded; call the real model on a miss and append it.
    ``rewrite``: call the real model for every call and start the file afresh (once per run:
    recorders of one process, and processes rewriting the cassette at the same time, add to
    the same new file).
    ``off``: bypass the cassette entirely.
    """

    REPLAY = "replay"
    RECORD_MISSING = "record-missing"
    REWRITE = "rewrite"
    OFF = "off"


class BeyondRecorded(enum.StrEnum):
    """What replay does when a call asks for a sample index beyond those recorded for its
    request (a judge asked for repeat 4 where 3 were recorded).

    ``repeat``: replay the last recorded sample below it (the default; a deterministic model
    can then be called any number of times). ``cycle``: replay sample ``index % recorded``.
    ``error``: raise ``CassetteMiss``. ``record-missing`` and ``rewrite`` record the missing
    sample instead, whatever the policy.
    """

    REPEAT = "repeat"
    CYCLE = "cycle"
    ERROR = "error"


def parse_beyond(value: str | BeyondRecorded) -> BeyondRecorded:
    """Turn a policy name into a ``BeyondRecorded``; an unknown name lists the valid ones."""
    if isinstance(value, BeyondRecorded):
        return value
    try:
        return BeyondRecorded(str(value).strip().lower())
    except ValueError:
        names = ", ".join(policy.value for policy in BeyondRecorded)
        raise ValueError(f"beyond_recorded must be one of {names}, got {value!r}") from None


class ResolvedMode(msgspec.Struct, frozen=True):
    """The mode in force and where it came from (for messages)."""

    mode: RecordMode
    source: str


def parse_mode(value: str | RecordMode, *, source: str) -> RecordMode:
    """Turn a mode name into a ``RecordMode``; an unknown name lists the valid ones."""
    if isinstance(value, RecordMode):
        return value
    text = value.strip().lower().replace("_", "-")
    try:
        return RecordMode(text)
    except ValueError:
        names = ", ".join(mode.value for mode in RecordMode)
        raise ValueError(f"{source}: unknown record mode {value!r}; use one of {names}") from None


def ci_is_set(environ: Mapping[str, str]) -> bool:
    """True when ``CI`` is set to anything but an empty string, 0, false or no."""
    return environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def resolve_mode(
    argument: str | RecordMode | None, environ: Mapping[str, str] | None = None
) -> ResolvedMode:
    """The effective mode: the argument, else ``replay`` under CI, else the env var, else replay."""
    env = os.environ if environ is None else environ
    if argument is not None:
        return ResolvedMode(parse_mode(argument, source="mode argument"), BY_ARGUMENT)
    if ci_is_set(env):
        return ResolvedMode(RecordMode.REPLAY, CI_FORCED)
    from_env = env.get(MODE_ENV, "").strip()
    if from_env:
        return ResolvedMode(parse_mode(from_env, source=MODE_ENV), f"set by {MODE_ENV}={from_env}")
    return ResolvedMode(RecordMode.REPLAY, "the default")
