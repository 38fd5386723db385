"""Fakes: ScriptedChat, EchoChat, HashEmbedding and RuleJudge (including what it gets wrong)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.errors import ScriptExhausted
from evalmark.models import ChatReply, EchoChat, HashEmbedding, Message, RuleJudge, ScriptedChat
from evalmark.models._prompts import AGREEMENT, GROUNDEDNESS, RELEVANCY, RUBRIC, parse_verdict
from evalmark.models._rule_judge import STOPWORDS

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(
    lambda word: word not in STOPWORDS
)
texts = st.lists(words, min_size=1, max_size=12).map(" ".join)


def _ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_scripted_list_is_consumed_in_order_and_never_cycles() -> None:
    chat = ScriptedChat(["one", ChatReply(text="two", finish_reason="length")])
    assert chat.chat(_ask("a")).text == "one"
    assert chat.chat(_ask("b"), temperature=0.3) == ChatReply(text="two", finish_reason="length")
    assert chat.remaining == 0
    with pytest.raises(ScriptExhausted, match="has 2 replies and all were used; call 3 asked 'c'"):
        chat.chat(_ask("c"))
    assert [call.messages[0]["content"] for call in chat.calls] == ["a", "b", "c"]
    assert chat.calls[1].params == {"temperature": 0.3}


def test_scripted_mapping_answers_by_first_matching_pattern() -> None:
    chat = ScriptedChat({r"capital of \w+": "Paris", r"capital": "generic", r"\d+ \+ \d+": "4"})
    assert chat.chat(_ask("What is the capital of France?")).text == "Paris"
    assert chat.chat(_ask("capital?")).text == "generic"
    system = [{"role": "system", "content": "compute 2 + 2"}, {"role": "user", "content": "go"}]
    assert chat.chat(system).text == "4", "patterns see every message, not only the last"
    with pytest.raises(ScriptExhausted, match="no pattern matches the prompt 'hello'"):
        chat.chat(_ask("hello"))


@given(st.lists(st.text(max_size=20), max_size=30))
def test_scripted_list_from_many_threads_hands_out_each_reply_once(replies: list[str]) -> None:
    chat = ScriptedChat(replies)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda i: chat.chat(_ask(str(i))).text, range(len(replies))))
    assert sorted(got) == sorted(replies)
    with pytest.raises(ScriptExhausted):
        chat.chat(_ask("one more"))


@given(st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), st.text())))
def test_echo_replies_with_the_last_user_message(turns: list[tuple[str, str]]) -> None:
    messages = [Message(role=role, content=content) for role, content in turns]
    users = [content for role, content in turns if role == "user"]
    assert EchoChat().chat(messages).text == (users[-1] if users else "")
    assert asyncio.run(EchoChat().achat(messages)).text == (users[-1] if users else "")


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a.astype(np.float64), b.astype(np.float64)))


@given(texts)
def test_hash_embedding_identical_texts_score_one_and_rows_are_unit(text: str) -> None:
    model = HashEmbedding()
    rows = model.embed([text, text.upper(), text])
    assert rows.shape == (3, 256) and rows.dtype == np.float32
    assert abs(np.linalg.norm(rows[0].astype(np.float64)) - 1.0) < 1e-6
    assert _cos(rows[0], rows[1]) == pytest.approx(1.0, abs=1e-6), "case is folded"
    assert rows[0].tobytes() == rows[2].tobytes()


@given(st.lists(words, min_size=6, max_size=12, unique=True), words)
def test_hash_embedding_paraphrase_beats_unrelated(base: list[str], extra: str) -> None:
    original = " ".join(base)
    paraphrase = " ".join([*base[1:], extra])
    unrelated = " ".join(w[::-1] + "q" for w in base)
    rows = HashEmbedding().embed([original, paraphrase, unrelated])
    assert _cos(rows[0], rows[1]) > 0.5
    assert _cos(rows[0], rows[1]) > _cos(rows[0], rows[2]) + 0.2


TOPICS = [
    "Volcanic eruptions release ash clouds over Iceland",
    "My grandmother bakes sourdough bread every Sunday",
    "Quarterly revenue grew despite supply chain problems",
    "Penguins huddle together through Antarctic winters",
    "The orchestra rehearsed Mahler symphony yesterday",
    "Kubernetes schedules containers across cluster nodes",
    "Football supporters celebrated outside stadium gates",
    "Medieval monks copied manuscripts by candlelight",
]


def test_hash_embedding_unrelated_texts_are_near_zero() -> None:
    rows = HashEmbedding().embed(TOPICS)
    sims = [_cos(rows[i], rows[j]) for i in range(len(TOPICS)) for j in range(i + 1, len(TOPICS))]
    assert abs(float(np.mean(sims))) < 0.05
    assert max(abs(s) for s in sims) < 0.3
    paraphrase = HashEmbedding().embed(["Volcanic eruptions released ash clouds above Iceland"])
    assert _cos(rows[0], paraphrase[0]) > 0.6


def test_hash_embedding_is_stable_across_processes_and_seeds_differ() -> None:
    code = (
        "from evalmark.models import HashEmbedding;"
        "print(HashEmbedding(dim=32, seed=7).embed(['stable text']).tobytes().hex())"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            timeout=120,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outs == {HashEmbedding(dim=32, seed=7).embed(["stable text"]).tobytes().hex()}
    other = HashEmbedding(dim=32, seed=8).embed(["stable text"]).tobytes().hex()
    assert other not in outs
    assert not HashEmbedding().embed(["!!! ..."]).any(), "no words: the zero vector"


def _verdict(text: str) -> bool | None:
    verdict = parse_verdict(text)
    assert verdict is not None and verdict.kind == "binary"
    return verdict.passed


def test_rule_judge_grounded_and_ungrounded_claims() -> None:
    judge = RuleJudge()
    doc = "The Eiffel Tower is 330 metres tall and stands in Paris, France."
    good = judge.chat(GROUNDEDNESS.render(context=doc, response="The Eiffel Tower is 330 metres."))
    bad = judge.chat(GROUNDEDNESS.render(context=doc, response="Big Ben is 96 metres in London."))
    assert _verdict(good.text) is True and good.metadata["overlap"] == 1.0
    assert _verdict(bad.text) is False
    assert "missing: big, ben, 96, london" in bad.text


def test_rule_judge_accepts_one_wrong_number_among_matching_words() -> None:
    """Pinned weakness: a number is one content word among others; 3 of 4 is enough."""
    doc = "The Eiffel Tower is 330 metres tall and stands in Paris, France."
    reply = RuleJudge().chat(GROUNDEDNESS.render(context=doc, response="Eiffel Tower: 500 metres."))
    assert _verdict(reply.text) is True and reply.metadata["overlap"] == 0.75


def test_rule_judge_accepts_a_dropped_negation() -> None:
    """Pinned weakness: negation words are ignored, so a contradiction passes."""
    prompt = GROUNDEDNESS.render(
        context="The drug is not approved for children.",
        response="The drug is approved for children.",
    )
    assert _verdict(RuleJudge().chat(prompt).text) is True


def test_rule_judge_rejects_a_correct_paraphrase() -> None:
    """Pinned weakness: synonyms do not count, so a faithful paraphrase fails."""
    prompt = AGREEMENT.render(
        question="What happened to the meeting?",
        expected_output="The meeting was postponed.",
        response="They delayed the gathering to a later date.",
    )
    assert _verdict(RuleJudge().chat(prompt).text) is False


def test_rule_judge_ignores_word_order() -> None:
    prompt = GROUNDEDNESS.render(context="Bob paid Alice.", response="Alice paid Bob.")
    assert _verdict(RuleJudge().chat(prompt).text) is True


def test_rule_judge_relevancy_and_numbers() -> None:
    judge = RuleJudge()
    on_topic = RELEVANCY.render(
        question="How many moons does Mars have?", response="Mars has two moons."
    )
    off_topic = RELEVANCY.render(
        question="How many moons does Mars have?", response="Bananas are yellow."
    )
    assert _verdict(judge.chat(on_topic).text) is True
    assert _verdict(judge.chat(off_topic).text) is False
    numbers = GROUNDEDNESS.render(context="Revenue was 1,000 dollars.", response="Revenue: 1000")
    assert _verdict(judge.chat(numbers).text) is True


@given(st.lists(words, min_size=1, max_size=8, unique=True), st.data())
def test_rule_judge_grade_tracks_overlap(reference: list[str], data: st.DataObject) -> None:
    kept = data.draw(st.integers(0, len(reference)))
    response = " ".join(reference[:kept])
    reply = RuleJudge().chat(
        RUBRIC.render(question="q", expected_output=" ".join(reference), response=response)
    )
    verdict = parse_verdict(reply.text)
    assert verdict is not None and verdict.kind == "graded" and verdict.grade is not None
    share = reply.metadata["overlap"]
    assert verdict.grade == 1 + int(4 * share + 0.5)
    assert share == kept / len(reference)
    if kept == len(reference):
        assert verdict.grade == 5
    if kept == 0:
        assert verdict.grade == 1


@given(texts, texts, st.floats(0, 1))
def test_rule_judge_is_deterministic_and_monotone_in_threshold(
    claim: str, evidence: str, threshold: float
) -> None:
    prompt = GROUNDEDNESS.render(context=evidence, response=claim)
    strict, loose = RuleJudge(min_overlap=threshold), RuleJudge(min_overlap=0.0)
    assert strict.chat(prompt) == strict.chat(prompt)
    if _verdict(strict.chat(prompt).text):
        assert _verdict(loose.chat(prompt).text)


def test_rule_judge_refuses_foreign_prompts() -> None:
    with pytest.raises(ValueError, match="reads only evalmark's own judge prompts"):
        RuleJudge().chat(_ask("Is this grounded? yes or no"))
    with pytest.raises(ValueError, match="min_overlap must be in"):
        RuleJudge(min_overlap=1.5)
