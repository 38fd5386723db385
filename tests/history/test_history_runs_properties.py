"""Properties of runs in the history for generated verdicts: a run's input digest ignores the
order of its files and changes with any of them; a run's results read back as appended, and
run ids grow; the flaky cases are exactly the (case, check) pairs whose verdicts differ across
runs that read the same inputs, counted over the sets of inputs where the verdict changed."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.history import CaseResult, HistoryStore, RunRecord, open_history
from evalmark.history._flaky import flaky_cases
from evalmark.history._record import AnswerIdentity

IDENTITY = AnswerIdentity("m", None, "b")
PAIRS = st.lists(
    st.tuples(st.sampled_from(["refund", "login", "名", "a b"]), st.sampled_from(["exact", "f1"])),
    min_size=1,
    max_size=5,
    unique=True,
)
DIGEST = st.text("0123456789abcdef", min_size=64, max_size=64)
FILES = st.dictionaries(st.sampled_from(["samples:s.yaml", "cassettes:c", "suite:x"]), DIGEST)


def run_of(
    verdicts: list[tuple[str, str, bool, float]], files: dict[str, str] | None = None
) -> RunRecord:
    return RunRecord(
        suite="s",
        source="suite.yaml",
        started_at="2026-01-01T00:00:00Z",
        duration_s=1.0,
        evalmark_version="0",
        results=tuple(
            CaseResult(case=c, strategy=k, passed=ok, score=score, identity=IDENTITY)
            for c, k, ok, score in verdicts
        ),
        files={"samples:s.yaml": "a" * 64} if files is None else files,
    )


@contextmanager
def store() -> Iterator[HistoryStore]:
    with tempfile.TemporaryDirectory() as folder:
        history = open_history(Path(folder) / "h.sqlite")
        try:
            yield history
        finally:
            history.close()


@settings(max_examples=examples(100))
@given(FILES, st.randoms(use_true_random=False), DIGEST)
def test_the_input_digest_ignores_file_order_and_changes_with_any_file(
    files: dict[str, str], rng: Any, other: str
) -> None:
    items = list(files.items())
    rng.shuffle(items)
    assert run_of([], files).inputs_digest == run_of([], dict(items)).inputs_digest
    for name, digest in files.items():
        if digest != other:
            changed = {**files, name: other}
            assert run_of([], files).inputs_digest != run_of([], changed).inputs_digest


@settings(max_examples=examples(30), deadline=None)
@given(
    st.lists(
        PAIRS.flatmap(
            lambda pairs: st.tuples(
                *(
                    st.tuples(st.just(c), st.just(k), st.booleans(), st.floats(0, 1))
                    for c, k in pairs
                )
            )
        ),
        min_size=1,
        max_size=4,
    )
)
def test_results_read_back_as_appended_and_run_ids_grow(
    runs: list[tuple[tuple[str, str, bool, float], ...]],
) -> None:
    with store() as history:
        ids = [history.append(run_of(list(verdicts))) for verdicts in runs]
        assert ids == sorted(set(ids))
        for run_id, verdicts in zip(ids, runs, strict=True):
            read = [(r.case, r.strategy, r.passed, r.score) for r in history.results_of(run_id)]
            assert read == list(verdicts)


@settings(max_examples=examples(30), deadline=None)
@given(
    PAIRS.flatmap(
        lambda p: st.tuples(
            st.just(p),
            st.lists(
                st.lists(st.booleans(), min_size=len(p), max_size=len(p)), min_size=1, max_size=5
            ),
            st.lists(st.booleans(), min_size=5, max_size=5),
        )
    )
)
def test_the_flaky_cases_are_those_whose_verdicts_differ_among_runs_of_the_same_inputs(
    drawn: tuple[list[tuple[str, str]], list[list[bool]], list[bool]],
) -> None:
    pairs, runs, same_inputs = drawn
    files = [
        {"samples:s.yaml": ("a" if same else "b") * 64}
        for same, _ in zip(same_inputs, runs, strict=False)
    ]
    expected = set()
    for i, (case, check) in enumerate(pairs):
        # the changes within each set of inputs, summed over the sets where the verdict changed
        total = passes = 0
        for letter in "ab":
            verdicts = [
                run[i]
                for run, where in zip(runs, files, strict=True)
                if where["samples:s.yaml"][0] == letter
            ]
            if len(verdicts) >= 2 and len(set(verdicts)) == 2:
                total, passes = total + len(verdicts), passes + sum(verdicts)
        if total:
            expected.add((case, check, total, passes))
    with store() as history:
        for verdicts, where in zip(runs, files, strict=True):
            history.append(
                run_of(
                    [(c, k, ok, float(ok)) for (c, k), ok in zip(pairs, verdicts, strict=True)],
                    where,
                )
            )
        found = {(f.case, f.strategy, f.runs, f.passes) for f in flaky_cases(history)}
    assert found == expected
