"""NoisyJudge: seeded flips, a pure function of (seed, run index, sample, check)."""

from __future__ import annotations

import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.models import (
    NoisyJudge,
    RuleJudge,
    ScriptedChat,
    call_context,
    record_replay,
)
from evalmark.models._prompts import GROUNDEDNESS, RUBRIC, parse_verdict

PROMPT = GROUNDEDNESS.render(context="The sky is blue.", response="The sky is blue.")
GRADED = RUBRIC.render(question="q", expected_output="alpha beta gamma delta", response="alpha")


def _ask(judge: NoisyJudge, run: int, sample: str, check: str = "grounded") -> bool:
    with call_context(run_index=run, sample=sample, check=check):
        reply = judge.chat(PROMPT)
    verdict = parse_verdict(reply.text)
    assert verdict is not None and verdict.passed is not None
    assert reply.metadata["flipped"] is (verdict.passed is False)
    return bool(reply.metadata["flipped"])


def test_flip_frequency_matches_the_rate() -> None:
    judge = NoisyJudge(RuleJudge(), flip_rate=0.2, seed=11)
    flips = sum(_ask(judge, run, f"s{i}") for run in range(20) for i in range(100))
    assert abs(flips / 2000 - 0.2) < 3 * (0.2 * 0.8 / 2000) ** 0.5


def test_rates_zero_and_one_are_exact() -> None:
    assert not any(_ask(NoisyJudge(RuleJudge(), 0.0, seed=1), r, "s") for r in range(50))
    assert all(_ask(NoisyJudge(RuleJudge(), 1.0, seed=1), r, "s") for r in range(50))


def test_flips_do_not_depend_on_order_or_threads() -> None:
    judge = NoisyJudge(RuleJudge(), flip_rate=0.3, seed=5)
    keys = [(run, f"sample-{i}", check) for run in range(5) for i in range(20) for check in "ab"]
    serial = {key: _ask(judge, *key) for key in keys}
    shuffled = keys[:]
    random.Random(0).shuffle(shuffled)
    with ThreadPoolExecutor(8) as pool:
        threaded = dict(zip(shuffled, pool.map(lambda k: _ask(judge, *k), shuffled), strict=True))
    assert threaded == serial
    assert {key: judge.flip(*key).flipped for key in keys} == serial


def test_flips_are_the_same_in_another_process() -> None:
    code = (
        "from evalmark.models import NoisyJudge, RuleJudge;"
        "j = NoisyJudge(RuleJudge(), 0.5, seed=3);"
        "print(''.join('1' if j.flip(r, f's{r}', 'c').flipped else '0' for r in range(64)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"},
        timeout=120,
    ).stdout.strip()
    judge = NoisyJudge(RuleJudge(), 0.5, seed=3)
    assert out == "".join("1" if judge.flip(r, f"s{r}", "c").flipped else "0" for r in range(64))
    assert "0" in out and "1" in out


def test_seed_run_sample_and_check_each_change_the_draws() -> None:
    base = NoisyJudge(RuleJudge(), 0.5, seed=1)
    other_seed = NoisyJudge(RuleJudge(), 0.5, seed=2)
    draws = [base.flip(r, "s", "c").draw for r in range(8)]
    assert draws != [other_seed.flip(r, "s", "c").draw for r in range(8)]
    assert draws != [base.flip(r, "t", "c").draw for r in range(8)]
    assert draws != [base.flip(r, "s", "d").draw for r in range(8)]
    assert len(set(draws)) == 8


@given(st.integers(0, 10_000), st.text(max_size=10), st.integers(0, 2**32))
def test_graded_flips_stay_in_range_and_change_the_grade(run: int, sample: str, seed: int) -> None:
    judge = NoisyJudge(RuleJudge(), flip_rate=1.0, seed=seed)
    with call_context(run_index=run, sample=sample, check="rubric"):
        reply = judge.chat(GRADED)
    verdict = parse_verdict(reply.text)
    assert verdict is not None and verdict.grade in {1, 2, 3, 4, 5}
    assert reply.metadata["original_verdict"] == 2
    assert verdict.grade != 2 and reply.metadata["flipped"] is True


def test_graded_replacements_are_uniform_over_the_other_grades() -> None:
    judge = NoisyJudge(RuleJudge(), flip_rate=1.0, seed=9)
    counts = {g: 0 for g in (1, 3, 4, 5)}
    for run in range(4000):
        counts[judge.replacement_grade(2, run, "s", "c")] += 1
    assert all(abs(n - 1000) < 3 * (4000 * 0.25 * 0.75) ** 0.5 for n in counts.values())


def test_per_sample_rates_and_their_errors() -> None:
    judge = NoisyJudge(RuleJudge(), flip_rate={"always": 1.0, "never": 0.0}, seed=0)
    assert all(_ask(judge, r, "always") for r in range(20))
    assert not any(_ask(judge, r, "never") for r in range(20))
    with pytest.raises(ValueError, match="no flip rate for sample 'other'"):
        _ask(judge, 0, "other")
    with pytest.raises(ValueError, match=r"flip_rate\['x'\] must be a probability"):
        NoisyJudge(RuleJudge(), {"x": 1.5}, seed=0)


@pytest.mark.parametrize(
    ("reply", "flipped"),
    [("Yes.", "No."), ("**no** - unsupported", "**yes** - unsupported"), ("YES", "NO")],
)
def test_plain_yes_no_replies_flip_their_first_word(reply: str, flipped: str) -> None:
    judge = NoisyJudge(ScriptedChat({".": reply}), 1.0, seed=0)
    with call_context(sample="s", check="c"):
        out = judge.chat(PROMPT)
    assert out.text == flipped and out.metadata["flipped"] is True
    assert out.metadata["original_verdict"] is reply.strip("*").lower().startswith("yes")


def test_calls_outside_a_context_and_unparseable_replies_are_errors() -> None:
    with pytest.raises(RuntimeError, match="call_context"):
        NoisyJudge(RuleJudge(), 0.1, seed=0).chat(PROMPT)
    mute = NoisyJudge(ScriptedChat(["I think so."]), 0.1, seed=0)
    with call_context(sample="s"), pytest.raises(ValueError, match=r"no 'VERDICT: yes\|no'"):
        mute.chat(PROMPT)


def test_noise_wraps_a_replayed_judge(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorded = record_replay(RuleJudge(), cassette, mode="record-missing")
    with call_context(sample="s", check="c"):
        recorded.chat(PROMPT)
    noisy = NoisyJudge(record_replay(RuleJudge(), cassette, mode="replay"), 1.0, seed=0)
    with call_context(sample="s", check="c"):
        reply = noisy.chat(PROMPT)
    assert reply.text.endswith("VERDICT: no") and reply.metadata["flipped"] is True
