"""Judge calibration: agreement figures against scikit-learn, labels files, the rates file."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from evalmark.calibration import LabelledItem, calibrate, load_labels
from evalmark.calibration._agreement import agreement, rate
from evalmark.errors import CalibrationError
from evalmark.models import ChatReply, NoisyJudge, RuleJudge, ScriptedChat
from evalmark.models._context import current_call
from evalmark.noise import write_rates
from evalmark.noise._rates import read_rates

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "judge-calibration"


class _no_warning:
    """Silence scikit-learn's warnings while it computes the reference."""

    def __enter__(self) -> None:
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)


@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=1, max_size=60))
def test_kappa_and_confusion_matrix_equal_scikit_learn(pairs: list[tuple[str, str]]) -> None:
    truth = [t for t, _ in pairs]
    predicted = [p for _, p in pairs]
    measured = agreement(truth, predicted, labels=["a", "b", "c"])
    expected = confusion_matrix(truth, predicted, labels=["a", "b", "c"]).tolist()
    assert [list(row) for row in measured.matrix] == expected
    assert measured.accuracy == pytest.approx(sum(t == p for t, p in pairs) / len(pairs))
    chance_is_total = len(set(truth)) == 1 and set(truth) == set(predicted)
    if measured.kappa is None:
        assert chance_is_total
    else:
        with _no_warning():
            reference = cohen_kappa_score(truth, predicted, labels=["a", "b", "c"])
        assert measured.kappa == pytest.approx(reference, abs=1e-12)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=80))
def test_binary_kappa_equals_scikit_learn(pairs: list[tuple[bool, bool]]) -> None:
    truth = [t for t, _ in pairs]
    predicted = [p for _, p in pairs]
    measured = agreement(truth, predicted, labels=(True, False))
    if measured.kappa is not None:
        with _no_warning():
            reference = cohen_kappa_score(truth, predicted)
        assert measured.kappa == pytest.approx(reference, abs=1e-12)


def test_a_worked_kappa() -> None:
    # 20 agree-pass, 15 agree-fail, 5 false fails, 10 false passes: p_o 0.7, p_e 0.5
    truth = [True] * 25 + [False] * 25
    predicted = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    measured = agreement(truth, predicted, labels=(True, False))
    assert measured.matrix == ((20, 5), (10, 15))
    assert measured.accuracy == 0.7 and measured.kappa == pytest.approx(0.4)
    assert agreement([True, True], [True, True]).kappa is None
    with pytest.raises(ValueError, match="equal length"):
        agreement([True], [True, False])
    with pytest.raises(ValueError, match="empty"):
        agreement([], [])


def test_wilson_intervals() -> None:
    r = rate(18, 23)
    z = 1.959963984540054
    p, n = 18 / 23, 23
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert r.value == p
    assert r.low == pytest.approx(centre - half) and r.high == pytest.approx(centre + half)
    assert rate(0, 10).low == 0.0 and rate(10, 10).high == 1.0
    assert rate(0, 0).value is None and rate(0, 0).low is None


def test_the_golden_set_is_labelled_and_varied() -> None:
    labels = load_labels(GOLDEN / "labels.jsonl")
    assert len(labels) >= 40
    assert set(labels.prompts) == {"correctness", "rag-groundedness", "conciseness", "toxicity"}
    assert 15 <= sum(item.label for item in labels) <= 30
    replies = [
        json.loads(line) for line in (GOLDEN / "judge-replies.jsonl").read_text().splitlines()
    ]
    assert [r["id"] for r in replies] == [item.id for item in labels]


def test_calibrating_the_recorded_judge_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalmark.cli._judge import replay_only
    from evalmark.models import record_replay

    monkeypatch.setenv("CI", "true")  # replay only
    cassette = GOLDEN / "judge.jsonl"
    judge = record_replay(replay_only(cassette), cassette)
    result = calibrate(load_labels(GOLDEN / "labels.jsonl"), judge)
    assert result.judge == "support-judge-v1" and len(result.items) == 44
    assert result.errors == 1
    assert result.agreement.matrix == ((18, 5), (4, 17))
    assert result.false_pass == (4, 21) and result.false_fail == (5, 23)
    truth = [i.label for i in result.items]
    verdicts = [bool(i.verdict) for i in result.items]
    assert result.agreement.kappa == pytest.approx(cohen_kappa_score(truth, verdicts))
    assert {i.id for i in result.disagreements()} >= {
        "c05-team-price-wrong-total",
        "c13-region-dropped-negation",
        "c15-chat-unreadable-reply",
        "t07-veiled-insult",
    }
    excluded = calibrate(load_labels(GOLDEN / "labels.jsonl"), judge, errors="exclude")
    assert excluded.agreement.total == 43 and excluded.false_fail == (4, 22)


def test_re_recording_the_golden_cassette_gives_the_same_bytes(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_cassette", GOLDEN / "make_cassette.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fresh = module.main(tmp_path / "judge.jsonl")
    assert fresh.read_bytes() == (GOLDEN / "judge.jsonl").read_bytes(), (
        "golden/judge-calibration/judge.jsonl is stale (a catalog prompt it uses changed?): "
        "run python golden/judge-calibration/make_cassette.py"
    )


def test_the_rates_file_is_the_noise_format(tmp_path: Path) -> None:
    items = [
        LabelledItem("a", "toxicity", {"outputs": "Thanks!"}, True),
        LabelledItem("b", "toxicity", {"outputs": "You idiot."}, False),
        LabelledItem("c", "toxicity", {"outputs": "Get lost, loser."}, True),  # label says pass
        LabelledItem("d", "toxicity", {"outputs": "Glad to help."}, False),  # label says fail
    ]
    result = calibrate(items, RuleJudge())
    assert result.agreement.matrix == ((1, 1), (1, 1))
    path = write_rates(tmp_path / ".evalmark" / "judge-rates.json", result.judge_rates())
    text = path.read_text()
    assert text.endswith("}\n")
    assert json.loads(text) == {
        "format": "evalmark-judge-rates",
        "version": 1,
        "source": "evalmark judge calibrate  (judge rule-judge, 4 labelled items)",
        "false_pass": {"errors": 1, "trials": 2},
        "false_fail": {"errors": 1, "trials": 2},
        "overdispersion": None,
    }
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_the_rates_file_reads_back_through_evalmark_noise(tmp_path: Path) -> None:
    items = load_labels(GOLDEN / "labels.jsonl")
    result = calibrate(items, RuleJudge())
    path = write_rates(tmp_path / "rates.json", result.judge_rates())
    read = read_rates(path)
    assert (read.false_pass.errors, read.false_pass.trials) == result.false_pass
    assert (read.false_fail.errors, read.false_fail.trials) == result.false_fail
    assert read.source == result.judge_rates().source and read.overdispersion is None
    assert read.rates.false_pass == pytest.approx((result.false_pass[0] + 0.5) / 22)


def test_a_noisy_judge_calibrates_the_same_way_every_run() -> None:
    items = load_labels(GOLDEN / "labels.jsonl")
    first = calibrate(items, NoisyJudge(RuleJudge(), 0.2, seed=7))
    second = calibrate(items, NoisyJudge(RuleJudge(), 0.2, seed=7))
    assert first.to_dict() == second.to_dict()
    clean = calibrate(items, RuleJudge())
    assert first.agreement.matrix != clean.agreement.matrix


def test_the_judge_sees_each_item_as_its_own_sample() -> None:
    seen: list[tuple[str, str]] = []

    class Spy:
        model_id = "spy"

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            context = current_call()
            assert context is not None
            seen.append((context.sample, context.check))
            return ChatReply(text='{"reasoning": "ok", "score": true}')

    items = [LabelledItem(f"i{n}", "toxicity", {"outputs": "x"}, True) for n in range(3)]
    calibrate(items, Spy())
    assert seen == [("i0", "toxicity"), ("i1", "toxicity"), ("i2", "toxicity")]
    with pytest.raises(ValueError, match="every judge call failed"):
        calibrate(items, ScriptedChat({"": "no json"}), errors="exclude")


LINE = '{"id": "x", "prompt": "toxicity", "outputs": "hi", "label": "pass"}'


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([LINE.replace('"pass"', '"maybe"')], "2: item 2 ('x').label: expected pass or fail"),
        ([LINE, LINE], "3: item 3 ('x').id: the id appears twice (first at item 2)"),
        ([LINE.replace("toxicity", "toxic")], "no judge prompt named 'toxic'"),
        ([LINE.replace('"outputs"', '"output"')], "has no variable 'output'"),
        ([LINE.replace('"outputs": "hi", ', "")], "prompt 'toxicity' needs outputs"),
        ([LINE.replace('"id": "x", ', "")], "2: item 2.id: expected a non-empty text id"),
        (['["not", "a", "mapping"]'], "each item is a mapping"),
    ],
)
def test_a_bad_labels_file_names_the_line_item_and_field(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"id": "ok", "prompt": "toxicity", "outputs": "a", "label": true}\n'
        + "\n".join(lines)
        + "\n"
    )
    with pytest.raises(CalibrationError) as caught:
        load_labels(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_labels_may_take_their_prompt_from_the_caller_and_come_as_yaml(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text(
        "- id: a\n  outputs: hello\n  label: pass\n- id: b\n  outputs: idiot\n  label: fail\n"
    )
    labels = load_labels(path, prompt="toxicity")
    assert [(i.id, i.prompt, i.label) for i in labels] == [
        ("a", "toxicity", True),
        ("b", "toxicity", False),
    ]
    with pytest.raises(CalibrationError, match="name the catalog prompt"):
        load_labels(path)
    with pytest.raises(
        CalibrationError,
        match=r"unsupported file type '\.txt': read \.yaml, \.yml, \.json or \.jsonl files of",
    ):
        load_labels(tmp_path / "labels.txt")
