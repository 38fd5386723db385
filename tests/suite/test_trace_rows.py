"""The rows of a chunked trace evaluation kept on disk (``RowSpool``): the report of the
spooled chunks reads back every result, answer and usage as they were, keeps a chunk whose
results do not pickle in memory, and lets go of the rows it reads."""

from __future__ import annotations

from decimal import Decimal

from evalmark.report._model import Report
from evalmark.report._values import SampleUsage
from evalmark.results._result import EvaluationResult
from evalmark.results._result_column import ResultColumn
from evalmark.suite._trace_rows import RowSpool


def _chunk(names: list[str], metadata: dict[str, object]) -> Report:
    results = [
        EvaluationResult(i % 2 == 0, i / 10, f"row {n}", metadata) for i, n in enumerate(names)
    ]
    return Report(
        name="chunk",
        sample_names=names,
        sample_tags=[("a",) if i % 2 else () for i in range(len(names))],
        columns={"check": ResultColumn.from_results(results)},
        outputs=[f"answer {n}" for n in names],
        usage={0: SampleUsage(latency_ms=5.0, total_tokens=3, cost=Decimal("0.25"))},
    )


def test_the_spooled_report_reads_back_every_row_and_keeps_none() -> None:
    spool = RowSpool()
    first, second = _chunk(["a", "b", "c"], {"k": 1}), _chunk(["d", "e"], {"k": [2]})
    spool.add(first)
    spool.add(second)
    report = spool.report("whole", {"suite": "s"})
    rows = [*first.rows(), *second.rows()]
    assert [r.name for r in report.rows()] == [r.name for r in rows]
    for got, want in zip(report.rows(), rows, strict=True):
        assert (got.tags, got.verdict, got.score, got.explanation, got.output, got.usage) == (
            want.tags,
            want.verdict,
            want.score,
            want.explanation,
            want.output,
            want.usage,
        )
        assert dict(got.results["check"].metadata) == dict(want.results["check"].metadata)
    assert sorted(report._usage_map()) == [0, 3]
    assert report.pass_rate == 3 / 5 and report.tags == ("a",)
    column = report.column("check")
    assert column[-1].explanation == "row e"
    assert [r.explanation for r in column] == [f"row {n}" for n in "abcde"]
    assert not column._cache  # the rows read are not kept in memory


def test_a_chunk_whose_results_do_not_pickle_stays_in_memory() -> None:
    def unpicklable() -> None:
        return None

    spool = RowSpool()
    spool.add(_chunk(["a"], {"f": unpicklable}))
    spool.add(_chunk(["b"], {"k": 1}))
    report = spool.report("whole", {})
    assert report.row(0).results["check"].metadata["f"] is unpicklable
    assert report.row(1).results["check"].metadata["k"] == 1
    assert report.output(0) == "answer a" and report.output(1) == "answer b"
