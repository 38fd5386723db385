"""The one engine function, ``run_samples``: every face gives its report, it tells progress,
it checks its inputs and settings once, and the faces over it stay thin."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from evalmark import Evaluation, Sample, Samples, Scorer
from evalmark.engine._pipeline import run_samples
from evalmark.engine._run import run_sync
from evalmark.engine._settings import RunSettings
from evalmark.report import render_report
from evalmark.strategies import ExactMatch, TokenF1

SAMPLES = Samples(
    tuple(
        Sample(name=f"s{i}", parameters=[i], expected_output=f"answer {i}", tags=["t"])
        for i in range(12)
    )
)


async def answer(i: int) -> str:
    await asyncio.sleep(0.001 * (12 - i))  # later samples finish first
    if i == 4:
        raise RuntimeError("no answer")
    return f"answer {i}" if i % 3 else "nope"


@pytest.mark.parametrize("concurrency", [1, 5])
def test_every_face_gives_the_engines_report(concurrency: int) -> None:
    settings = RunSettings(concurrency, run_index=2)
    engine = run_sync(
        run_samples(SAMPLES, [ExactMatch(), TokenF1()], application=answer, settings=settings)
    )
    scorer = Scorer(concurrency, run_index=2).evaluate(SAMPLES, answer, ExactMatch(), TokenF1())
    fluent = (
        Evaluation(SAMPLES).evaluate(answer).using(ExactMatch(), TokenF1()).concurrency(concurrency)
    )
    assert engine.name == "answer" and engine.errors == 2
    assert render_report(scorer, "json") == render_report(engine, "json")
    assert render_report(fluent.run(run_index=2), "json") == render_report(engine, "json")
    outputs = [engine.output(i) for i in range(12)]
    given = run_sync(run_samples(SAMPLES, [ExactMatch()], outputs=outputs, name="given"))
    assert render_report(given, "json") == render_report(
        Scorer().evaluate_outputs(SAMPLES, outputs, ExactMatch(), name="given"), "json"
    )


def test_progress_follows_every_application_call_failures_and_repeats_included() -> None:
    calls: list[tuple[int, int]] = []
    settings = RunSettings(3, repeats=2)
    report = run_sync(
        run_samples(
            SAMPLES,
            [ExactMatch()],
            application=answer,
            settings=settings,
            progress=lambda n, t: calls.append((n, t)),
        )
    )
    assert report.metadata["repeats"]["n"] == 2
    assert calls == [(1, 12)] * 24
    calls.clear()
    run_sync(
        run_samples(
            SAMPLES, [ExactMatch()], outputs=["x"] * 12, progress=lambda n, t: calls.append((n, t))
        )
    )
    assert calls == []  # nothing was called


def test_the_application_or_its_outputs() -> None:
    with pytest.raises(TypeError, match="not both"):
        run_sync(run_samples(SAMPLES, [ExactMatch()], application=answer, outputs=["x"] * 12))
    with pytest.raises(TypeError, match="must be callable, got None"):
        run_sync(run_samples(SAMPLES, [ExactMatch()]))
    with pytest.raises(ValueError, match="got 2 outputs for 12 samples"):
        run_sync(run_samples(SAMPLES, [ExactMatch()], outputs=["x", "y"]))


def test_settings_are_checked_once_for_every_face() -> None:
    with pytest.raises(ValueError, match="concurrency must be a whole number >= 1, got 0"):
        RunSettings(0)
    with pytest.raises(ValueError, match=r"k must be a whole number from 1 to repeats \(2\)"):
        Scorer(repeats=2, k=3)
    with pytest.raises(ValueError, match="errors must be one of fail, skip, raise"):
        Evaluation(SAMPLES).errors("ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="concurrency must be"):
        Evaluation(SAMPLES).concurrency(0)  # refused when given, not when run
    assert Scorer(2, errors="skip", repeats=3, k=2).settings == RunSettings(2, "skip", 0, 3, 2)


def test_the_faces_over_the_engine_are_thin() -> None:
    from evalmark.suite import _runner as runner

    faces = {
        "Scorer": inspect.getsource(Scorer),
        "Evaluation": inspect.getsource(Evaluation),
        "suite run": inspect.getsource(runner.run_suite)
        + inspect.getsource(runner._run_evaluation),
    }
    for face, source in faces.items():
        assert len(source.splitlines()) < 100, face
