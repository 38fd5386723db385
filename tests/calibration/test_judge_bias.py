"""``evalmark judge bias``: the bias battery replayed from golden/judge-bias/ (a cassette of
hand-written verdicts), its figures recounted here from the verdicts file, not from the
battery's code; a lexical judge shows no position bias; bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.calibration._bias import family_of, load_bias_items, padded, run_bias_battery
from evalmark.cli import main
from evalmark.models import RuleJudge
from evalmark.models._modes import MODE_ENV
from evalmark.noise._paired import newcombe_paired

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "judge-bias"
PAIRS = GOLDEN / "pairs.jsonl"
CASSETTE = GOLDEN / "judge.jsonl"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {row["id"]: row for row in map(json.loads, lines)}


def _expected() -> dict[str, tuple[list[int], list[str]]]:
    """(both, only_first, only_second, neither) and the flipped ids of each test, counted
    from the hand-written verdicts."""
    pairs, said = _rows(PAIRS), _rows(GOLDEN / "judge-replies.jsonl")
    mirror = {"A": "B", "B": "A", "tie": "tie"}
    tables: dict[str, list[tuple[str, bool, bool, bool]]] = {
        "position": [],
        "length": [],
        "self-preference": [],
    }
    for ident, pair in pairs.items():
        given, swapped, pad = said[ident]["given"], said[ident]["swapped"], said[ident]["padded"]
        tables["position"].append((ident, given == "A", swapped == "B", mirror[swapped] != given))
        tables["length"].append((ident, pad == "A", given == "A", pad != given))
        own = "A" if pair["model_a"].startswith("nimbus") else "B"
        judge_own, person_own = given == own, pair["label"] == own
        tables["self-preference"].append((ident, judge_own, person_own, judge_own != person_own))
    out = {}
    for test, rows in tables.items():
        counts = [0, 0, 0, 0]
        for _, first, second, _ in rows:
            if first and second:
                counts[0] += 1
            elif first:
                counts[1] += 1
            elif second:
                counts[2] += 1
            else:
                counts[3] += 1
        out[test] = (counts, [ident for ident, *_, changed in rows if changed])
    return out


def test_the_golden_battery_replays_with_figures_recounted_by_hand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["judge", "bias", str(PAIRS), "--judge", f"cassette:{CASSETTE}", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1  # the length figure fails
    assert document["judge"] == "nimbus-judge-1" and document["family"] == "nimbus"
    expected = _expected()
    verdicts = {}
    for figure in document["figures"]:
        counts, flipped = expected[figure["test"]]
        d = figure["difference"]
        assert [d["both"], d["only_first"], d["only_second"], d["neither"]] == counts
        reference = newcombe_paired(*counts)
        assert d["estimate"] == pytest.approx((counts[1] - counts[2]) / sum(counts))
        assert (d["low"], d["high"]) == pytest.approx((reference.low, reference.high))
        assert figure["flipped"] == flipped
        verdicts[figure["test"]] = figure["verdict"]
    assert verdicts == {
        "position": "inconclusive",
        "length": "fail",
        "self-preference": "inconclusive",
    }


def test_the_text_report_lists_figures_intervals_and_flipped_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["judge", "bias", str(PAIRS), "--judge", f"cassette:{CASSETTE}"]) == 1
    text = capsys.readouterr().out
    assert "length           +50.0 points, 95% Newcombe interval +18.3 to +69.4" in text
    assert "(limit +10): FAIL" in text
    assert "2/16 items flipped: delete-client, reminder" in text


def test_a_lexical_judge_has_no_position_bias_on_the_golden_pairs() -> None:
    report = run_bias_battery(load_bias_items(PAIRS), RuleJudge())
    position = report.figures[0]
    assert position.test == "position" and position.flipped == ()
    assert position.difference is not None and position.difference.estimate == 0.0
    assert report.figures[2].verdict == "not measured"  # RuleJudge is of no answer's family


def test_padding_restates_and_families_come_from_model_ids() -> None:
    assert padded("30 days.").startswith("30 days.\n\n") and padded("x").count("x") == 2
    assert family_of("openai/gpt-4o-mini") == family_of("gpt-4.1") == "gpt"
    assert family_of("nimbus-judge-1") == "nimbus"


def test_bad_pairs_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "pairs.jsonl"
    row = {"id": "x", "inputs": "q", "answer_a": "a", "answer_b": "b", "label": "C"}
    bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["judge", "bias", str(bad), "--judge", "rule"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(bad) in err and "label" in err and "A, B or tie" in err
    assert main(["judge", "bias", str(tmp_path / "none.jsonl"), "--judge", "rule"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_pair_never_recorded_is_a_one_line_cassette_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "pairs.jsonl"
    row = {"id": "new", "inputs": "Is it new?", "answer_a": "Yes.", "answer_b": "No."}
    extra.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["judge", "bias", str(extra), "--judge", f"cassette:{CASSETTE}"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
