"""The checks of a run that score their whole column as plain CPU work (the text checks and the
metric kernels: their classes set ``_threaded_batch``) run side by side on the run's threads,
so a kernel that releases the GIL (token F1, ROUGE-L, ...) works on one core while the Python
part of another check runs on the other. Each column is the one the check gives alone; the
report takes them in the order of the checks, so it does not depend on which ends first.
With ``concurrency=1``, or fewer than two such checks, every check runs in turn as before."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalmark._tracing._direct import engine_run
from evalmark.results._results import ResultColumn
from evalmark.samples._samples import Sample
from evalmark.strategies._metric import MetricStrategy, TextPairs

if TYPE_CHECKING:
    from evalmark.engine._run import Run

__all__ = ["threaded_columns"]


def _threaded(strategy: Any) -> bool:
    """Whether ``strategy`` scores its column as CPU work that may run beside others."""
    return (
        getattr(strategy, "_threaded_batch", False) is True
        and hasattr(strategy, "evaluate_batch")
        and getattr(strategy, "batch", True)
    )


async def threaded_columns(
    run: Run,
    named: Sequence[tuple[str, Any]],
    samples: Sequence[Sample],
    outputs: Sequence[Any],
) -> dict[str, tuple[ResultColumn, float]]:
    """The column and the seconds taken of each threaded check of ``named``, by label, run at
    most ``run.concurrency`` at a time on the run's threads (kernels first); empty when they
    run in turn instead."""
    chosen = [(label, strategy) for label, strategy in named if _threaded(strategy)]
    if run.concurrency < 2 or len(chosen) < 2:
        return {}
    # The text pairs are read once here, so the checks share them rather than each reading its
    # own at the same time.
    TextPairs.of(samples, outputs, str(getattr(chosen[0][1], "name", chosen[0][0])))
    chosen.sort(key=lambda item: not isinstance(item[1], MetricStrategy))  # stable

    def one(label: str, strategy: Any) -> tuple[ResultColumn, float]:
        start = time.perf_counter()
        with engine_run():  # the engine records the column, once per row
            column = run.batch_column(label, strategy, samples, outputs)
        return column, time.perf_counter() - start

    loop = asyncio.get_running_loop()
    done = await asyncio.gather(
        *(
            loop.run_in_executor(run.pool, contextvars.copy_context().run, one, label, strategy)
            for label, strategy in chosen
        )
    )
    return {label: result for (label, _), result in zip(chosen, done, strict=True)}
