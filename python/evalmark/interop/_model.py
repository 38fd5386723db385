"""What an importer returns (:class:`Imported`) and how it refuses a loss (:class:`Losses`)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalmark._files.json_read import read_jsonl
from evalmark.errors import ImportFormatError, Problem
from evalmark.samples._case import TestCase
from evalmark.samples._sample import Sample

__all__ = [
    "Deferred",
    "DeferredMapping",
    "Imported",
    "ImportedConversation",
    "Losses",
    "hash_later",
    "jsonl_rows",
    "source_hash",
]


class Deferred:
    """Samples an importer builds only when they are first read: ``build`` makes them;
    ``names`` and ``expected`` are their names and expected outputs, known already (what
    :meth:`Imported.columns` needs). ``build`` must not fail: the importer has checked
    everything it reads before it returns."""

    def __init__(
        self,
        build: Callable[[], tuple[Sample, ...]],
        names: Sequence[str],
        expected: Sequence[str | None],
    ) -> None:
        self.build = build
        self.names = names
        self.expected = expected


class DeferredMapping(Mapping[str, Mapping[str, Any]]):
    """A read-only mapping made by ``build`` when it is first read (its length, a key, an
    item): for what an importer carries per sample but no re-score reads (``Imported.extra``).
    ``build`` fails only with :class:`ImportFormatError` (what it finds wrong, once read)."""

    def __init__(self, build: Callable[[], dict[str, Mapping[str, Any]]]) -> None:
        self._build: Callable[[], dict[str, Mapping[str, Any]]] | None = build
        self._value: dict[str, Mapping[str, Any]] = {}

    def _built(self) -> dict[str, Mapping[str, Any]]:
        build = self._build
        if build is not None:
            self._value = build()
            self._build = None
        return self._value

    def __getitem__(self, key: str) -> Mapping[str, Any]:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the dict it makes (a builder does not pickle)."""
        return (dict, (self._built(),))


class _SamplesField:
    """``Imported.samples``: a tuple, or a :class:`Deferred` built on first read."""

    def __get__(self, instance: Any, owner: Any = None) -> tuple[Sample, ...]:
        if instance is None:
            raise AttributeError("samples")  # the field has no default
        value = instance.__dict__["_samples"]
        if isinstance(value, Deferred):
            value = value.build()
            instance.__dict__["_samples"] = value
        return value  # type: ignore[no-any-return]

    def __set__(self, instance: Any, value: tuple[Sample, ...] | Deferred) -> None:
        if "_samples" in instance.__dict__:
            raise AttributeError("cannot assign to field 'samples'")
        instance.__dict__["_samples"] = value


@dataclass(frozen=True)
class ImportedConversation:
    """A multi-turn case of another tool: the user's messages in order (``turns``), and per
    recorded build the assistant's reply to each (``answers``); ``tags`` as the source gave."""

    name: str
    turns: tuple[str, ...]
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Imported:
    """Another tool's evaluation as evalmark holds it.

    ``samples`` are the cases; ``checks`` the suite file's ``strategies`` entries that re-score
    them with the source's semantics; ``outputs`` maps each recorded build (a provider, a model)
    to the answer of each sample, by sample name. ``source`` records the format, its version,
    the files read and the SHA-256 of their bytes; ``lost`` the fields dropped by
    ``allow_loss``; ``kept`` what the source holds that no check reads (kept verbatim);
    ``extra`` the test-case fields of a sample beyond its answer (retrieved context, tool
    calls), by sample name; ``conversations`` the multi-turn cases (a source holds samples or
    conversations, not both). An importer may give ``samples`` as a :class:`Deferred`: they
    are built when first read (:meth:`columns` reads a build's pairs without them).
    """

    format: str
    version: str
    files: tuple[str, ...]
    sha256: str
    samples: _SamplesField = _SamplesField()
    checks: tuple[Any, ...]  # type: ignore[misc]  # samples has no default (a descriptor)
    outputs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    lost: tuple[str, ...] = ()
    kept: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    conversations: tuple[ImportedConversation, ...] = ()

    @property
    def source(self) -> dict[str, Any]:
        """The source's format, version, files and hash (the imported suite keeps them)."""
        return {
            "format": self.format,
            "version": self.version,
            "files": list(self.files),
            "sha256": self.sha256,
            "lost": list(self.lost),
            **({"kept": dict(self.kept)} if self.kept else {}),
        }

    def __getstate__(self) -> dict[str, Any]:
        """The fields as pickled: deferred samples built first (a builder does not pickle)."""
        state = dict(self.__dict__)
        state["_samples"] = self.samples
        return state

    def columns(self, build: str) -> tuple[list[str | None], list[str]]:
        """The ``expected_output`` of each sample ``build`` answers (None where a sample has
        several expected outputs, or none) and its answer, in sample order: what batch
        metrics read. Deferred samples are not built for it."""
        answers = self.outputs[build]
        pending = self.__dict__["_samples"]
        pairs: Iterable[tuple[str, str | None]]
        if isinstance(pending, Deferred):
            if len(answers) == len(pending.names) and list(answers) == list(pending.names):
                return list(pending.expected), list(answers.values())  # every sample, in order
            pairs = zip(pending.names, pending.expected, strict=True)
        else:
            pairs = ((s.name, s.expected_output) for s in pending)
        expected: list[str | None] = []
        actual: list[str] = []
        for name, wanted in pairs:
            if name in answers:
                expected.append(wanted)
                actual.append(answers[name])
        return expected, actual

    def test_cases(self, build: str) -> tuple[TestCase, ...]:
        """The recorded answers of ``build`` as test cases (question, answer, expected)."""
        answers = self.outputs[build]
        cases = []
        for sample in self.samples:
            if sample.name in answers:
                question = sample.parameters[0]
                cases.append(
                    TestCase(
                        question
                        if isinstance(question, str)
                        else json.dumps(question, sort_keys=True, ensure_ascii=False),
                        answers[sample.name],
                        expected_output=sample.expected_output,
                        context=sample.context,
                        **self.extra.get(sample.name, {}),
                    )
                )
        return tuple(cases)


def source_hash(paths: Iterable[Path], read: Mapping[Path, bytes] | None = None) -> str:
    """SHA-256 over the files' names and bytes, in the order given (``read``: the bytes of
    files already read, not read again).

    Each name and each content goes in behind its length (8 bytes, big-endian), so two
    different lists of files never feed the digest the same bytes: no name or content can
    pass for the end of one file and the start of the next."""
    digest = hashlib.sha256()
    for path in paths:
        content = read[path] if read is not None and path in read else path.read_bytes()
        for part in (path.name.encode("utf-8", "surrogateescape"), content):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


def hash_later(paths: Sequence[Path], read: Mapping[Path, bytes]) -> Callable[[], str]:
    """:func:`source_hash` of files already read, computed in a thread while the import goes
    on (hashing releases the interpreter's lock): call the function returned for the digest.
    Should the thread fail, the digest is computed (and fails) in the caller's thread."""
    found: list[str] = []

    def work() -> None:
        try:
            found.append(source_hash(paths, read))
        except Exception:  # the caller's thread hashes again and says why
            return

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def digest() -> str:
        thread.join()
        return found[0] if found else source_hash(paths, read)

    return digest


class Losses:
    """The losses a user accepted (``--allow-loss FIELD``); any other loss stops the import."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)
        self.lost: list[str] = []

    def refuse(self, name: str, what: str, path: str, line: int | None, record: str) -> None:
        """Stop with :class:`ImportFormatError` unless ``name`` is an allowed loss."""
        if name in self.allowed:
            if name not in self.lost:
                self.lost.append(name)
            return
        raise ImportFormatError(
            [
                Problem(
                    f"{what}; importing it would lose it. Pass --allow-loss {name} "
                    "to import without it",
                    path=path,
                    line=line,
                    record=record,
                )
            ]
        )

    def used(self) -> tuple[str, ...]:
        """The accepted losses that actually happened, in order."""
        return tuple(self.lost)


def as_mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    if type(value) is dict:  # what JSON decodes to: no abstract-class check needed
        return value
    if value is None:
        return {}
    return value if isinstance(value, Mapping) else {}


def jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    """Each record of a JSON Lines file with its 1-based line, read by the project's JSON Lines
    reader: a malformed line, a byte that is not UTF-8 or an empty file is an
    :class:`ImportFormatError` naming the file, line and column."""
    for record in read_jsonl(path.read_bytes(), str(path), ImportFormatError):
        yield record.line, record.value
