"""``evalmark tune`` never tells a suite to shrink: a number of cases below the suite's size is
said to be a minimum, and a suite that misses the limits is told how far to grow."""

from __future__ import annotations

import json

import pytest

from evalmark.cli import main

EIGHT = ["tune", "--cases", "8", "--judged-checks", "2", "--failing", "2", "--flip", "0.01"]
QUIET = ["--runs", "0", "--repeats", "1"]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_a_minimum_below_the_suite_size_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # 8 cases meet the limits with ≥7/8; 7 cases of the same mix would too (≥6/7)
    out = _run(capsys, *EIGHT, *QUIET)
    assert "recommended: pass rate≥0.875 (≥7/8 cases pass)" in out
    line = next(x for x in out.splitlines() if "≥6/7" in x)
    assert line.startswith(
        "minimum cases for false alarm ≤ 0.05 and miss ≤ 0.05: 7 of the same mix"
    )
    assert "a minimum, not advice to drop cases: the suite's 8 cases meet them already" in line
    assert "cases needed for" not in out


def test_a_suite_that_misses_the_limits_is_never_told_to_shrink(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # only "every case" is studied: it fails the healthy build 15% of runs. The fewest cases
    # some gate works for is 7, but the advice is about this suite's 8 cases and up.
    out = _run(capsys, *EIGHT, *QUIET, "--thresholds", "every")
    assert "NOT MET" in out
    advice = out[out.index("what would meet them:") :].splitlines()[1]
    assert advice.strip().startswith("the suite's 8 cases, gating on ≥7/8")
    assert "7 cases of the same mix" not in out


def test_every_number_of_cases_printed_is_the_suite_size_or_more_or_a_minimum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for flip in ("0.01", "0.03", "0.08"):
        args = [*EIGHT[:-1], flip, "--runs", "0", "--repeats", "1,3", "--thresholds", "every"]
        out = _run(capsys, *args)
        for line in out.splitlines():
            for word in ("cases of the same mix", "cases with the majority"):
                if word in line and "minimum" not in line:
                    count = int(line.split(word)[0].split()[-1])
                    assert count >= 8, line


def test_the_json_says_where_the_search_started(capsys: pytest.CaptureFixture[str]) -> None:
    met = json.loads(_run(capsys, *EIGHT, *QUIET, "--format", "json"))
    need = met["levels"][0]["cases_needed"]
    assert (need["cases"], need["searched_from"]) == (7, 1)
    missed = json.loads(_run(capsys, *EIGHT, *QUIET, "--thresholds", "every", "--format", "json"))
    need = missed["levels"][0]["cases_needed"]
    assert (need["cases"], need["searched_from"]) == (8, 8)
