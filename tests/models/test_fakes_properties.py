"""Properties of the offline models and their seeded helpers: hash embeddings, scripted and echo
chats, callable chats, the noisy judge's flips, the counter-based draws and the lexical overlap
the rule judge uses, over generated texts, scripts and seeds.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import ScriptExhausted
from evalmark.models import (
    EchoChat,
    HashEmbedding,
    NoisyJudge,
    RuleJudge,
    ScriptedChat,
    chat_from_callable,
)
from evalmark.models._canonical import chat_request, request_key
from evalmark.models._lexical import content_words, overlap
from evalmark.models._seeded import randbelow, uniform

TEXT = st.text(max_size=24)
ASCII_WORDS = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=6), max_size=6)
ROLES = st.sampled_from(["system", "user", "assistant"])
MESSAGES = st.lists(
    st.fixed_dictionaries({"role": ROLES, "content": st.text(alphabet="abc xyz?", max_size=10)}),
    min_size=1,
    max_size=4,
)
SEEDS = st.integers(-(2**63), 2**63)
DIMS = st.integers(1, 64)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(TEXT, max_size=5), DIMS)
def test_hash_embeddings_are_unit_vectors_or_zero(texts: list[str], dim: int) -> None:
    rows = HashEmbedding(dim=dim).embed(texts)
    assert rows.shape == (len(texts), dim)
    for text, row in zip(texts, rows, strict=True):
        norm = float(np.linalg.norm(row))
        if any(ch.isalnum() or ch == "_" for ch in text) and norm:
            assert norm == pytest.approx(1.0)
        assert norm == pytest.approx(1.0) or norm == 0.0


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=5), DIMS, SEEDS)
def test_a_hash_embedding_row_does_not_depend_on_its_batch(
    texts: list[str], dim: int, seed: int
) -> None:
    model = HashEmbedding(dim=dim, seed=seed)
    rows = model.embed(texts)
    again = HashEmbedding(dim=dim, seed=seed)
    for text, row in zip(texts, rows, strict=True):
        assert np.array_equal(again.vector(text), row)


@settings(max_examples=examples(60), deadline=None)
@given(ASCII_WORDS)
def test_hash_embeddings_ignore_case(words: list[str]) -> None:
    text = " ".join(words)
    model = HashEmbedding(dim=16)
    assert np.array_equal(model.vector(text.upper()), model.vector(text))


@settings(max_examples=examples(60), deadline=None)
@given(ASCII_WORDS, st.randoms())
def test_hash_embeddings_ignore_word_order(words: list[str], random: Any) -> None:
    shuffled = list(words)
    random.shuffle(shuffled)
    model = HashEmbedding(dim=16)
    assert np.allclose(model.vector(" ".join(shuffled)), model.vector(" ".join(words)))


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(max_value=0))
def test_a_hash_embedding_needs_a_positive_dimension(dim: int) -> None:
    with pytest.raises(ValueError, match="dim"):
        HashEmbedding(dim=dim)


@settings(max_examples=examples(40), deadline=None)
@given(TEXT)
def test_embed_refuses_a_single_string(text: str) -> None:
    with pytest.raises(TypeError, match="single string"):
        HashEmbedding(dim=4).embed(text)  # type: ignore[arg-type]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(TEXT, max_size=6), MESSAGES)
def test_a_scripted_chat_replies_in_order_then_refuses(
    replies: list[str], messages: list[dict[str, str]]
) -> None:
    chat = ScriptedChat(replies)
    for i, reply in enumerate(replies):
        assert chat.remaining == len(replies) - i
        assert chat.chat(messages).text == reply
    with pytest.raises(ScriptExhausted):
        chat.chat(messages)
    assert len(chat.calls) == len(replies) + 1


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.text(alphabet="abc", max_size=3), min_size=1, max_size=24), st.integers(2, 6))
def test_a_scripted_chat_gives_each_reply_once_across_threads(
    replies: list[str], threads: int
) -> None:
    chat = ScriptedChat(replies)
    got: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        while True:
            try:
                text = chat.chat([{"role": "user", "content": "q"}]).text
            except ScriptExhausted:
                return
            with lock:
                got.append(text)

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=30)
    assert sorted(got) == sorted(replies)
    assert chat.remaining == 0


@settings(max_examples=examples(60), deadline=None)
@given(
    st.dictionaries(st.sampled_from(["abc", "xyz", "q"]), TEXT, min_size=1),
    st.lists(MESSAGES, min_size=1, max_size=4),
    st.randoms(),
)
def test_a_pattern_script_answers_a_prompt_the_same_in_any_call_order(
    script: dict[str, str], prompts: list[list[dict[str, str]]], random: Any
) -> None:
    def answers(order: list[int]) -> dict[int, str | None]:
        chat = ScriptedChat(script)
        out: dict[int, str | None] = {}
        for i in order:
            try:
                out[i] = chat.chat(prompts[i]).text
            except ScriptExhausted:
                out[i] = None
        return out

    order = list(range(len(prompts)))
    shuffled = list(order)
    random.shuffle(shuffled)
    assert answers(order) == answers(shuffled)


@settings(max_examples=examples(60), deadline=None)
@given(MESSAGES)
def test_echo_chat_replies_with_the_last_user_message(messages: list[dict[str, str]]) -> None:
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert EchoChat().chat(messages).text == (users[-1] if users else "")


@settings(max_examples=examples(60), deadline=None)
@given(MESSAGES, st.dictionaries(st.sampled_from(["temperature", "seed", "top_p"]), st.integers()))
def test_a_callable_chat_gives_the_function_its_messages_and_parameters(
    messages: list[dict[str, str]], params: dict[str, int]
) -> None:
    seen: list[Any] = []

    def answer(got: list[dict[str, str]], /, **kwargs: Any) -> str:
        seen.append((got, kwargs))
        return f"{len(got)}:{sorted(kwargs)}"

    reply = chat_from_callable(answer, model_id="fn").chat(messages, **params)
    assert reply.text == f"{len(messages)}:{sorted(params)}"
    assert [dict(m) for m in seen[0][0]] == messages and seen[0][1] == params


@settings(max_examples=examples(60), deadline=None)
@given(SEEDS, st.lists(st.text(max_size=4) | st.integers(), max_size=4))
def test_a_seeded_draw_is_in_the_unit_interval_and_a_pure_function(
    seed: int, labels: list[Any]
) -> None:
    draw = uniform(seed, *labels)
    assert 0.0 <= draw < 1.0
    assert uniform(seed, *labels) == draw


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 10**6), SEEDS, st.text(max_size=4))
def test_randbelow_stays_below_its_bound(n: int, seed: int, label: str) -> None:
    assert 0 <= randbelow(n, seed, label) < n


@settings(max_examples=examples(60), deadline=None)
@given(SEEDS, st.integers(0, 100), st.text(max_size=5), st.floats(0, 1), st.floats(0, 1))
def test_a_noisy_judge_flips_more_at_a_higher_rate(
    seed: int, run: int, name: str, r1: float, r2: float
) -> None:
    low, high = sorted((r1, r2))
    a = NoisyJudge(RuleJudge(), low, seed).flip(run, name, "check")
    b = NoisyJudge(RuleJudge(), high, seed).flip(run, name, "check")
    assert a.draw == b.draw
    assert b.flipped or not a.flipped


@settings(max_examples=examples(60), deadline=None)
@given(SEEDS, st.integers(0, 100), st.text(max_size=5))
def test_a_noisy_judge_never_flips_at_zero_and_always_at_one(
    seed: int, run: int, name: str
) -> None:
    assert not NoisyJudge(RuleJudge(), 0.0, seed).flip(run, name, "c").flipped
    assert NoisyJudge(RuleJudge(), 1.0, seed).flip(run, name, "c").flipped


@settings(max_examples=examples(60), deadline=None)
@given(
    SEEDS,
    st.lists(st.integers(0, 9), min_size=2, max_size=6, unique=True),
    st.data(),
)
def test_a_replaced_grade_is_another_grade(seed: int, grades: list[int], data: Any) -> None:
    judge = NoisyJudge(RuleJudge(), 0.5, seed, grades=grades)
    grade = data.draw(st.sampled_from(grades))
    other = judge.replacement_grade(grade, data.draw(st.integers(0, 9)), "s", "c")
    assert other in grades and other != grade


@settings(max_examples=examples(40), deadline=None)
@given(st.floats().filter(lambda r: not 0.0 <= r <= 1.0))
def test_a_noisy_judge_refuses_a_rate_outside_zero_one(rate: float) -> None:
    with pytest.raises(ValueError, match="probability"):
        NoisyJudge(RuleJudge(), rate, 0)


@settings(max_examples=examples(60), deadline=None)
@given(TEXT)
def test_content_words_of_content_words_are_the_same(text: str) -> None:
    words = content_words(text)
    assert content_words(" ".join(words)) == words


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT)
def test_overlap_is_a_share_and_names_what_is_missing(claim: str, evidence: str) -> None:
    share, missing = overlap(claim, evidence)
    assert 0.0 <= share <= 1.0
    assert set(missing) <= set(content_words(claim))
    assert not set(missing) & set(content_words(evidence))
    assert (share == 1.0) == (not missing)


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT)
def test_a_claim_overlaps_fully_with_any_text_that_contains_it(claim: str, more: str) -> None:
    assert overlap(claim, f"{more} {claim} {more}") == (1.0, [])


@settings(max_examples=examples(60), deadline=None)
@given(MESSAGES, st.text(alphabet="abc", min_size=1, max_size=4))
def test_the_request_key_names_the_model(messages: list[dict[str, str]], model: str) -> None:
    one = request_key(chat_request(model, messages, {}))
    assert one == request_key(chat_request(model, [dict(m) for m in messages], {}))
    assert one != request_key(chat_request(model + "x", messages, {}))


@settings(max_examples=examples(40), deadline=None)
@given(MESSAGES, st.sampled_from(["timeout", "api_key", "base_url"]), st.text(max_size=6))
def test_the_request_key_ignores_transport_settings(
    messages: list[dict[str, str]], name: str, value: str
) -> None:
    plain = request_key(chat_request("m", messages, {"temperature": 0}))
    with_transport = request_key(chat_request("m", messages, {"temperature": 0, name: value}))
    assert with_transport == plain
