"""What a run needs, checked before it starts: the build asked for, each cassette it replays,
each function it imports. A name that does not exist is an input error (``SuiteError``) naming
the suite file, the line and the closest name that does exist, instead of a run in which every
case fails.

A cassette may be missing only when the run can record it: in a record mode other than
``replay``, with a live ``function`` (or judge or user ``model``) to record from. In replay mode
no message advises recording, since a missing cassette there is nearly always a mistyped path.
"""

from __future__ import annotations

from pathlib import Path

from evalmark._files.problems import suggest
from evalmark.errors import Problem, SuiteError
from evalmark.models._modes import RecordMode, resolve_mode
from evalmark.suite._callables import import_callable
from evalmark.suite._model import EvaluationSpec, JudgeSpec, Suite

__all__ = ["check_runnable"]

_MAX_FILES = 2000  # files looked at for a "did you mean" of a cassette path
_SKIPPED = ("out", "node_modules", "__pycache__")


def check_runnable(
    suite: Suite,
    build: str | None,
    mode: RecordMode | str | None,
    *,
    only: EvaluationSpec | None = None,
) -> None:
    """Raise ``SuiteError`` listing every build, cassette and function the run with ``build``
    and ``mode`` would need and that does not exist (each with the suite's file and line).
    With ``only``, just what that evaluation's application needs (not the judge)."""
    checker = _Checker(suite, resolve_mode(mode).mode)
    known = suite.build_names if only is None else only.application.build_names
    if build is not None and build not in known:
        checker.unknown_build(build, known)
    for evaluation in suite.evaluations if only is None else (only,):
        checker.evaluation(evaluation, build)
    if suite.judged and only is None:
        checker.judge(suite.judge)
    if checker.problems:
        raise SuiteError(checker.problems)


class _Checker:
    def __init__(self, suite: Suite, mode: RecordMode) -> None:
        self.suite = suite
        self.mode = mode
        self.problems: list[Problem] = []
        self._imported: set[tuple[str, Path]] = set()

    def report(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(message, path=str(self.suite.path), line=line or None))

    def unknown_build(self, build: str, names: tuple[str, ...]) -> None:
        lines = [e.application.lines.get("builds") for e in self.suite.evaluations]
        line = next((n for n in lines if n), None)
        if not names:
            self.report(line, f"no build named {build!r}: the suite records no builds")
            return
        close = suggest(build, names)
        hint = f"did you mean {close!r}? " if close else ""
        self.report(line, f"no build named {build!r}; {hint}the suite records: {', '.join(names)}")

    def evaluation(self, evaluation: EvaluationSpec, build: str | None) -> None:
        app = evaluation.application
        if app.function is not None:
            self.function(app.function, app.base, app.lines.get("function"), "function")
        user = evaluation.conversations.user_model if evaluation.conversations else None
        if user is not None:
            if user.model is not None:
                self.function(user.model, user.base, user.lines.get("model"), "user model")
            self.cassette(
                user.cassette,
                user.base,
                user.lines.get("cassette"),
                "the user model's cassette",
                user.model is not None and self.mode is not RecordMode.REPLAY,
                "user-model 'model'",
            )
        if not app.builds or (build is not None and build not in app.builds):
            return
        chosen = build if build is not None else app.build_names[0]
        recordable = app.function is not None and self.mode is not RecordMode.REPLAY
        self.cassette(
            app.builds[chosen],
            app.base,
            app.lines.get(f"build:{chosen}"),
            f"the cassette of build {chosen!r}",
            recordable,
            "function",
        )

    def judge(self, spec: JudgeSpec) -> None:
        if spec.kind == "noisy":
            if spec.inner is not None:
                self.judge(spec.inner)
            return
        if spec.kind != "recorded" or spec.cassette is None:
            return
        if spec.model is not None:
            self.function(spec.model, spec.base, spec.lines.get("model"), "judge model")
        self.cassette(
            spec.cassette,
            spec.base,
            spec.lines.get("cassette"),
            "the judge's cassette",
            spec.model is not None and self.mode is not RecordMode.REPLAY,
            "judge 'model'",
        )

    def function(self, reference: str, base: Path, line: int | None, what: str) -> None:
        if (reference, base) in self._imported:
            return
        self._imported.add((reference, base))
        try:
            import_callable(reference, base)
        except SuiteError as exc:
            detail = "; ".join(problem.message for problem in exc.problems)
            self.report(line, detail.replace("function ", f"{what} ", 1))

    def cassette(
        self, path: Path, base: Path, line: int | None, what: str, recordable: bool, source: str
    ) -> None:
        if path.exists() or recordable:
            return
        written = _relative(path, base)
        close = suggest(written, _cassettes(base, path.suffix))
        hint = f": did you mean '{close}'?" if close else ""
        if self.mode is RecordMode.REPLAY:
            advice = "fix the path"
        else:
            advice = f"the suite names no {source} to record it from; fix the path"
        self.report(line, f"{what} does not exist: {written} ({path}); {advice}{hint}")


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _cassettes(base: Path, suffix: str) -> list[str]:
    """Files under ``base`` with ``suffix`` (a bounded walk, skipping hidden and report
    folders), as paths relative to it."""
    found: list[str] = []
    if not base.is_dir():
        return found
    for path in base.rglob(f"*{suffix or '.jsonl'}"):
        if len(found) >= _MAX_FILES:
            break
        parts = path.relative_to(base).parts
        if not any(part.startswith(".") or part in _SKIPPED for part in parts):
            found.append(Path(*parts).as_posix())
    return sorted(found)
