"""What one run contributes to the history: the run's facts and one row per case and check."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "UNKNOWN",
    "AnswerIdentity",
    "CaseResult",
    "RunRecord",
    "collect_run",
    "file_digest",
    "git_state",
]


@dataclass(frozen=True, slots=True)
class AnswerIdentity:
    """What produced a case's answer: the model id, the SHA-256 of the recordings that
    answered it (``None`` for a live answer) and the build name. All three ``None``: unknown
    (a run that did not say, or a row written before evalmark recorded identities)."""

    model_id: str | None = None
    recordings: str | None = None
    build: str | None = None

    @property
    def known(self) -> bool:
        """True when the run said anything about what produced the answer."""
        return not (self.model_id is None and self.recordings is None and self.build is None)

    def describe(self) -> str:
        """The identity in a few words: ``model m, build b, recordings 1a2b3c4d``."""
        if not self.known:
            return "identity unknown"
        parts = [f"model {self.model_id or '-'}", f"build {self.build or '-'}"]
        parts.append(f"recordings {self.recordings[:8]}" if self.recordings else "live")
        return ", ".join(parts)


UNKNOWN = AnswerIdentity()


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The verdict of one check on one case of a run, and what produced the answer."""

    case: str
    strategy: str
    passed: bool
    score: float
    error: str | None = None
    explanation: str = ""
    tags: tuple[str, ...] = ()
    identity: AnswerIdentity = UNKNOWN


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run: where it came from, what it read, and its results.

    ``files`` maps a role and path (``"samples:golden/support/samples.yaml"``) to the SHA-256
    of the file's bytes; runs with equal ``inputs_digest`` read the same samples and cassettes,
    so a verdict that changes between them is flaky rather than a regression.
    """

    suite: str
    source: str
    started_at: str
    duration_s: float
    evalmark_version: str
    results: tuple[CaseResult, ...]
    build: str | None = None
    gate_passed: bool | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    files: Mapping[str, str] = field(default_factory=dict)

    @property
    def inputs_digest(self) -> str:
        """One digest of every input file's digest, in a fixed order."""
        text = "\n".join(f"{name}={digest}" for name, digest in sorted(self.files.items()))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (``"missing"`` for a file that is not there)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except FileNotFoundError:
        return "missing"
    return digest.hexdigest()


def git_state(folder: Path) -> tuple[str | None, bool | None]:
    """The commit checked out in ``folder`` and whether the work tree differs from it.

    ``(None, None)`` outside a git repository or where git is not installed.
    """
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
        )
        if commit.returncode != 0:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    return commit.stdout.strip() or None, dirty


def collect_run(
    *,
    suite: str,
    source: str,
    started_at: str,
    duration_s: float,
    results: Iterable[CaseResult],
    build: str | None = None,
    gate_passed: bool | None = None,
    inputs: Sequence[tuple[str, Path]] = (),
    folder: Path | None = None,
) -> RunRecord:
    """A run record with the evalmark version, the git state of ``folder`` (default: the
    current directory) and the digest of every input file (``(role, path)`` pairs)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        evalmark_version = version("evalmark")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        evalmark_version = "unknown"
    commit, dirty = git_state(folder or Path.cwd())
    files = {f"{role}:{path.as_posix()}": file_digest(path) for role, path in inputs}
    return RunRecord(
        suite=suite,
        source=source,
        started_at=started_at,
        duration_s=duration_s,
        evalmark_version=evalmark_version,
        results=tuple(results),
        build=build,
        gate_passed=gate_passed,
        git_commit=commit,
        git_dirty=dirty,
        files=files,
    )
