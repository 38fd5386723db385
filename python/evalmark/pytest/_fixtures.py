"""The fixtures of the evalmark pytest plugin: ``scorer``, ``samples`` and
``evalmark_record_mode``. The engine is imported only when a fixture is used."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from evalmark.pytest._registry import REGISTRY, answer_sources

if TYPE_CHECKING:
    from evalmark.models._modes import RecordMode
    from evalmark.samples._samples import Samples

__all__ = ["RegisteringScorer", "evalmark_record_mode", "samples", "scorer"]


def _quiet() -> Any:
    """Reports made in the block are not announced: the fixture registers them itself."""
    from evalmark._tracing._direct import watching_reports  # not at plugin start

    return watching_reports(None)


class RegisteringScorer:
    """The ``scorer`` fixture: a ``Scorer`` whose reports join the suite report, named (unless
    given ``name=``) after the id of the test that made them. ``evaluate``, ``aevaluate``,
    ``evaluate_outputs`` and ``aevaluate_outputs`` register their report; everything else is
    the scorer's own."""

    def __init__(self, scorer: Any, test_id: str) -> None:
        self._scorer = scorer
        self._test_id = test_id

    def _named(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        # A report is named after the test that made it, so a failed gate names the test.
        return {"name": self._test_id, **kwargs}

    def _register(self, report: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # evaluate(samples, function, ...): a recorded build tells what answered each sample
        samples = args[0] if args else kwargs.get("samples")
        sources = answer_sources(args[1], args[0]) if len(args) >= 2 else None
        REGISTRY.add(report, self._test_id, sources, samples)
        return report

    def evaluate(self, *args: Any, **kwargs: Any) -> Any:
        """``Scorer.evaluate``, then register the report."""
        with _quiet():
            report = self._scorer.evaluate(*args, **self._named(kwargs))
        return self._register(report, args, kwargs)

    async def aevaluate(self, *args: Any, **kwargs: Any) -> Any:
        """``Scorer.aevaluate``, then register the report."""
        with _quiet():
            report = await self._scorer.aevaluate(*args, **self._named(kwargs))
        return self._register(report, args, kwargs)

    def evaluate_outputs(self, *args: Any, **kwargs: Any) -> Any:
        """``Scorer.evaluate_outputs`` (precomputed outputs), then register the report."""
        with _quiet():
            report = self._scorer.evaluate_outputs(*args, **self._named(kwargs))
        return self._register(report, args[:1], kwargs)

    async def aevaluate_outputs(self, *args: Any, **kwargs: Any) -> Any:
        """``Scorer.aevaluate_outputs``, then register the report."""
        with _quiet():
            report = await self._scorer.aevaluate_outputs(*args, **self._named(kwargs))
        return self._register(report, args[:1], kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scorer, name)


@pytest.fixture
def scorer(request: pytest.FixtureRequest) -> RegisteringScorer:
    """A ``Scorer`` configured by ``@pytest.mark.evalmark_scorer(...)``; its reports are
    registered in the suite report under the test's id."""
    from evalmark.engine._scorer import Scorer

    options: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("evalmark_scorer"))):
        if marker.args:
            raise pytest.UsageError(
                f"{request.node.nodeid}: evalmark_scorer takes keyword options only, e.g. "
                "@pytest.mark.evalmark_scorer(concurrency=5)"
            )
        options.update(marker.kwargs)
    try:
        made = Scorer(**options)
    except TypeError as exc:
        raise pytest.UsageError(f"{request.node.nodeid}: evalmark_scorer: {exc}") from None
    return RegisteringScorer(made, request.node.nodeid)


def _resolve_source(source: Any, request: pytest.FixtureRequest) -> Any:
    """A source a sample loader claims is passed on as written; a path is resolved."""
    from evalmark.samples._plugins import loader_for

    if not isinstance(source, str | Path) or loader_for(source) is not None:
        return source
    path = Path(source)
    if path.is_absolute():
        return path
    candidates = [request.config.rootpath / path, Path(request.node.path).parent / path]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    tried = " and ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"{request.node.nodeid}: evalmark_samples: no file {str(source)!r} (tried {tried}); "
        "paths are relative to the rootdir or to the test file"
    )


@pytest.fixture
def samples(request: pytest.FixtureRequest) -> Samples:
    """The samples named by ``@pytest.mark.evalmark_samples(*sources, tags=[...])``, merged in
    order. Relative paths start from the rootdir, else from the test file's folder."""
    from evalmark.samples._samples import load_samples

    marker = request.node.get_closest_marker("evalmark_samples")
    if marker is None or not marker.args:
        raise pytest.UsageError(
            f"{request.node.nodeid} uses the `samples` fixture but has no "
            '@pytest.mark.evalmark_samples("path/to/samples.yaml") marker'
        )
    unknown = sorted(set(marker.kwargs) - {"tags"})
    if unknown:
        raise pytest.UsageError(
            f"{request.node.nodeid}: evalmark_samples takes only tags=..., not {', '.join(unknown)}"
        )
    sources = [_resolve_source(source, request) for source in marker.args]
    from evalmark.pytest._github import SAMPLE_FILES

    request.node.stash[SAMPLE_FILES] = [s for s in sources if isinstance(s, Path)]
    return load_samples(*sources, tags=marker.kwargs.get("tags"))


@pytest.fixture
def evalmark_record_mode(request: pytest.FixtureRequest) -> RecordMode | None:
    """The ``--evalmark-record-mode`` of the run (None when not given), for ``record_replay``."""
    from evalmark.models._modes import RecordMode

    mode = request.config.getoption("--evalmark-record-mode")
    return None if mode is None else RecordMode(mode)
