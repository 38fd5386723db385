"""One rewrite per run: which recorder starts a cassette afresh, and which add to it.

In ``rewrite`` mode the cassette is replaced once per *run*, and every later write of that run
merges into the new file under the cassette's lock. A run is:

- every recorder of one process (threads, several recorders of the same file);
- every process rewriting the same cassette while another one is (pytest-xdist workers,
  multiprocessing pools): a process that rewrites holds a shared lock on
  ``<cassette>.rewrite.lock`` from its first use of the cassette until it exits, and a newcomer
  that finds it held joins the generation in progress instead of starting a new one;
- every process with the same run id (``EVALMARK_RUN_ID``, or pytest-xdist's own
  ``PYTEST_XDIST_TESTRUNUID``), even one started after the others ended.

Two processes with *different* run ids rewriting the same cassette at the same time would
each throw the other's recordings away; the second is refused with :class:`CassetteError`.
The generation record (its id, run id, and whether the file was replaced yet) is the content
of ``<cassette>.rewrite.lock``, read and written only under the cassette's lock.
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path

import msgspec

from evalmark.errors import CassetteError

RUN_ENV = "EVALMARK_RUN_ID"
XDIST_RUN_ENV = "PYTEST_XDIST_TESTRUNUID"


class GenerationRecord(msgspec.Struct):
    """The rewrite in progress: its id, the run it belongs to, and whether it replaced the
    cassette yet."""

    generation: str
    run: str | None = None
    started: bool = False


class Generation:
    """This process's membership of a rewrite generation (kept until the process exits)."""

    def __init__(self, path: Path, generation: str, descriptor: int | None) -> None:
        self.path = path
        self.generation = generation
        self.descriptor = descriptor

    def replaces_file(self) -> bool:
        """Whether the next write starts the cassette afresh: true for the first write of the
        generation, whichever process makes it. Call under the cassette's lock."""
        record = _read(self.path)
        if record is None or record.generation != self.generation:
            # Without a record to trust, merging is the choice that never loses an entry.
            return False
        if record.started:
            return False
        record.started = True
        _write(self.path, record)
        return True


def run_id(environ: Mapping[str, str] | None = None) -> str | None:
    """The id of the run this process belongs to, when one is set (else None)."""
    env = os.environ if environ is None else environ
    return env.get(RUN_ENV, "").strip() or env.get(XDIST_RUN_ENV, "").strip() or None


def rewrite_lock_path(cassette: Path) -> Path:
    """The file whose shared lock marks the processes rewriting ``cassette``."""
    return cassette.with_name(cassette.name + ".rewrite.lock")


_joined: dict[str, Generation] = {}
_joined_guard = threading.Lock()


def join(cassette: Path) -> Generation:
    """Join the rewrite generation of ``cassette`` in progress, or start one. Call under the
    cassette's lock. Raises ``CassetteError`` when another run is rewriting it."""
    name = os.path.abspath(cassette)
    with _joined_guard:
        known = _joined.get(name)
        if known is not None:
            return known
        generation = _join_or_start(cassette, run_id())
        _joined[name] = generation
        return generation


def _join_or_start(cassette: Path, run: str | None) -> Generation:
    record = _read(cassette)
    if sys.platform == "win32":  # pragma: no cover - no shared locks there: run ids only
        if record is None or run is None or record.run != run:
            record = GenerationRecord(uuid.uuid4().hex, run)
            _write(cassette, record)
        return Generation(cassette, record.generation, None)
    import fcntl

    descriptor = os.open(rewrite_lock_path(cassette), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            others_alive = False
        except BlockingIOError:
            others_alive = True
        if others_alive:
            if record is None:
                record = GenerationRecord(uuid.uuid4().hex, run, started=True)
                _write(cassette, record)
            elif run is not None and record.run is not None and record.run != run:
                raise CassetteError(
                    f"{cassette} is being rewritten by another run (run id {record.run}; this "
                    f"one is {run}); rewriting it from both would lose recordings. Wait for the "
                    f"other run to end, or give both the same {RUN_ENV}"
                )
        elif record is None or run is None or record.run != run:
            record = GenerationRecord(uuid.uuid4().hex, run)
            _write(cassette, record)
        # Converting an exclusive lock to a shared one, or taking a shared one beside others:
        # no process holds it exclusively, because that only happens under the cassette lock.
        fcntl.flock(descriptor, fcntl.LOCK_SH)
    except BaseException:
        os.close(descriptor)
        raise
    return Generation(cassette, record.generation, descriptor)


_record_decoder = msgspec.json.Decoder(GenerationRecord)


def _read(cassette: Path) -> GenerationRecord | None:
    try:
        data = rewrite_lock_path(cassette).read_bytes()
        return _record_decoder.decode(data) if data.strip() else None
    except (FileNotFoundError, msgspec.DecodeError):
        return None


def _write(cassette: Path, record: GenerationRecord) -> None:
    # Written in place: the file is the lock, so it must keep its identity (no rename).
    path = rewrite_lock_path(cassette)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        data = msgspec.json.encode(record) + b"\n"
        os.ftruncate(descriptor, 0)
        os.lseek(descriptor, 0, os.SEEK_SET)
        os.write(descriptor, data)
    finally:
        os.close(descriptor)
