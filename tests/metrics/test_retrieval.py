"""Retrieval measures against pytrec_eval (trec_eval) on random and adversarial runs."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import MetricInputError
from evalmark.metrics import retrieval_metrics, retrieval_metrics_batch

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = (
    "P_1",
    "P_5",
    "P_10",
    "recall_1",
    "recall_10",
    "Rprec",
    "recip_rank",
    "map",
    "map_cut_3",
    "map_cut_10",
    "ndcg",
    "ndcg_cut_1",
    "ndcg_cut_10",
    "success_1",
    "success_5",
)


_CHILD = """
import json, sys
import pytrec_eval
qrels, run, measures, level = json.load(sys.stdin)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level)
json.dump(evaluator.evaluate(run), sys.stdout)
"""


def reference(qrels, run, measures=MEASURES, level=1, *, fresh=True):
    if not fresh:
        return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(
            run
        )
    # pytrec_eval (trec_eval underneath) keeps state between evaluators: on some data an
    # evaluator made after others in one process never returns (seed 19 of the seeded runs,
    # and generated runs). Each reference is computed in a fresh process.
    child = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps([qrels, run, list(measures), level]),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(child.stdout)


def assert_same(qrels, run, measures=MEASURES, level=1, *, fresh=True):
    want = reference(qrels, run, measures, level, fresh=fresh)
    got = retrieval_metrics(qrels, run, measures, relevance_level=level)
    assert got.keys() == want.keys()
    for q, values in want.items():
        assert got[q].keys() == values.keys(), q
        for m, v in values.items():
            assert math.isclose(got[q][m], v, rel_tol=1e-12, abs_tol=1e-15), (q, m, got[q][m], v)


def random_query(rng: random.Random, pool: list[str]):
    judged = rng.sample(pool, rng.randint(0, len(pool)))
    qrel = {d: rng.choice((-1, 0, 0, 1, 1, 2, 3)) for d in judged}
    ranked = rng.sample(pool, rng.randint(0, len(pool)))
    # Few distinct scores, so ties are common.
    run = {d: float(rng.choice((0.5, 1.0, 1.0, 2.0, rng.random()))) for d in ranked}
    return qrel, run


@pytest.mark.parametrize("seed", range(20))
def test_random_runs_equal_trec_eval(seed: int) -> None:
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(rng.randint(1, 30))]
    qrels, run = {}, {}
    for i in range(25):
        qrel, ranking = random_query(rng, pool)
        if rng.random() < 0.9:
            qrels[f"q{i}"] = qrel
        if rng.random() < 0.9:
            run[f"q{i}"] = ranking
    assert_same(qrels, run, fresh=True)
    assert_same(qrels, run, level=2, fresh=True)


ids = st.text(alphabet="abAB01é_", min_size=1, max_size=4)


@settings(max_examples=examples(25), deadline=None)
@given(
    qrel=st.dictionaries(ids, st.integers(-2, 4), max_size=8),
    run=st.dictionaries(ids, st.sampled_from([0.0, 1.0, -1.0, 2.5, 1e-300]), max_size=12),
)
def test_adversarial_runs_equal_trec_eval(qrel: dict[str, int], run: dict[str, float]) -> None:
    assert_same({"q": qrel}, {"q": run})


def test_scores_rank_in_single_precision_as_trec_eval_ranks_them() -> None:
    # the shrunk example: 1e-300 is 0 in single precision, so it ties with 0 and the larger id
    # ranks first
    assert_same({"q": {"A0": 0, "1Aé": 4}}, {"q": {"A0": 0.0, "1Aé": 1e-300}})
    assert_same({"q": {"b": 1, "a": 0}}, {"q": {"b": 1.0, "a": 1.0 + 1e-9}})
    assert_same({"q": {"b": 1, "a": 0}}, {"q": {"b": 1.0, "a": 1.0 + 1e-6}})


def test_ties_break_by_document_id_descending() -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    # trec_eval ranks c, b, a: the relevant a is third.
    assert reference(qrels, run, {"recip_rank"})["q"]["recip_rank"] == pytest.approx(1 / 3)
    assert retrieval_metrics(qrels, run, ["recip_rank"])["q"]["recip_rank"] == pytest.approx(1 / 3)


def test_edge_cases_equal_trec_eval() -> None:
    qrels = {"judged_empty": {}, "none_relevant": {"a": 0}, "q": {"a": 2, "b": 1, "z": 3}}
    run = {
        "judged_empty": {"a": 1.0},
        "none_relevant": {"a": 1.0},
        "q": {},  # empty ranking of a judged query: scored, all zeros
        "unjudged": {"a": 1.0},  # not in qrels: skipped
    }
    assert_same(qrels, run)
    assert set(retrieval_metrics(qrels, run)) == {"none_relevant", "q"}
    # k larger than the run, unjudged and zero-relevance documents inside it.
    assert_same({"q": {"a": 1, "b": 0}}, {"q": {"x": 3.0, "b": 2.0, "a": 1.0}}, ("P_1000",))


def test_default_measures_and_names() -> None:
    qrels, run = {"q": {"a": 1, "b": 2}}, {"q": {"b": 0.3, "c": 0.2, "a": 0.1}}
    got = retrieval_metrics(qrels, run)
    assert set(got["q"]) == {"ndcg_cut_10", "map", "recip_rank", "P_5", "recall_10"}
    assert retrieval_metrics(qrels, run, ["P.5"]) == retrieval_metrics(qrels, run, ["P_5"])
    assert set(retrieval_metrics(qrels, run, ["success"])["q"]) == {
        "success_1",
        "success_5",
        "success_10",
    }
    assert_same(qrels, run, ("P", "recall", "ndcg_cut", "map_cut", "success"))


def test_batch_equals_one_query_at_a_time() -> None:
    rng = random.Random(7)
    pool = [f"d{i}" for i in range(12)]
    rows = [random_query(rng, pool) for _ in range(40)]
    qrels = [q for q, _ in rows]
    runs = [r for _, r in rows]
    got = retrieval_metrics_batch(qrels, runs, MEASURES, workers=2)
    for i, (qrel, run) in enumerate(rows):
        one = retrieval_metrics({"q": qrel}, {"q": run}, MEASURES)
        for m in MEASURES:
            want = one["q"][m] if "q" in one else 0.0
            assert got[m][i] == want, (i, m)
    serial = retrieval_metrics_batch(qrels, runs, MEASURES, workers=1)
    assert all(np.array_equal(got[m], serial[m]) for m in MEASURES)


def test_batch_takes_ranked_lists() -> None:
    got = retrieval_metrics_batch([{"b": 1}], [["a", "b"]], ["recip_rank", "P_1"])
    assert got["recip_rank"].tolist() == [0.5]
    assert got["P_1"].tolist() == [0.0]


@pytest.mark.parametrize(
    ("qrels", "run", "metrics"),
    [
        ({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["bpref"]),
        ({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P_0"]),
        ({"q": {"a": 1.5}}, {"q": {"a": 1.0}}, ["map"]),
        ({"q": {"a": 1}}, {"q": {"a": "high"}}, ["map"]),
        ({"q": {"a": 1}}, {"q": {"a": float("nan")}}, ["map"]),
    ],
)
def test_bad_input_is_a_typed_error(qrels, run, metrics) -> None:
    with pytest.raises(MetricInputError):
        retrieval_metrics(qrels, run, metrics)


def test_batch_rejects_repeated_ids_and_unequal_lengths() -> None:
    with pytest.raises(MetricInputError, match="twice"):
        retrieval_metrics_batch([{"a": 1}], [["a", "a"]])
    with pytest.raises(MetricInputError, match="equal length"):
        retrieval_metrics_batch([{"a": 1}], [])


class _Id(str):
    pass


class _Score(float):
    pass


class _Judgment(int):
    pass


def test_values_of_other_types_score_as_their_plain_values() -> None:
    # exact str ids, float scores and int judgments are read straight from the dicts; subclasses,
    # ints as scores and numpy scalars take the checked path: all rank the same
    plain_qrels = {"q": {"doc-a": 2, "doc-b": 1, "doc-c": 0}}
    plain_run = {"q": {"doc-a": 0.5, "doc-b": 2.0, "doc-c": 2.0, "doc-d": 1.0}}
    want = retrieval_metrics(plain_qrels, plain_run, MEASURES)
    mixed_qrels = {"q": {_Id("doc-a"): _Judgment(2), "doc-b": 1, _Id("doc-c"): 0}}
    mixed_run = {"q": {"doc-a": _Score(0.5), _Id("doc-b"): 2, "doc-c": np.float64(2.0), "doc-d": 1}}
    assert retrieval_metrics(mixed_qrels, mixed_run, MEASURES) == want


def test_ids_that_share_their_first_eight_bytes_tie_break_as_trec_eval() -> None:
    rng = random.Random(3)
    ids = ["document-1", "document-10", "document-2", "documen", "document", "doc"]
    ids += [f"document-{rng.randrange(1000)}-{rng.randrange(10)}" for _ in range(30)]
    ids = list(dict.fromkeys(ids))
    qrel = {d: rng.choice((0, 1, 2)) for d in ids[::2]}
    run = {d: rng.choice((1.0, 2.0)) for d in ids}
    assert_same({"q": qrel}, {"q": run})


def test_ids_with_lone_surrogates_match_by_their_code_points() -> None:
    high, low = "a" + chr(0xD800), "a" + chr(0xDC00)
    qrels = {"q": {high: 1, low: 0}}
    run = {"q": {low: 3.0, high: 2.0, "b": 1.0}}
    assert retrieval_metrics(qrels, run, ["recip_rank", "P_1"])["q"] == {
        "recip_rank": 0.5,
        "P_1": 0.0,
    }


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ({"q": {"a": 2**70}}, {"q": {"a": 1.0}}, r'qrels 0: the value of document "a"'),
        ({"q": {"a": True}}, {"q": {"a": 1.0}}, r'qrels 0: the value of document "a"'),
        ({"q": {"a": 1}}, {"q": {"x": 1.0, "a": False}}, r'run 0: the value of document "a"'),
        ({"q": {"a": 1}}, {"q": {"a": 1.0, 7: 1.0}}, r"run 0: document ids must be str"),
    ],
)
def test_bad_values_name_the_query_and_the_document(qrels, run, message) -> None:
    with pytest.raises((MetricInputError, TypeError), match=message):
        retrieval_metrics(qrels, run, ["map"])
