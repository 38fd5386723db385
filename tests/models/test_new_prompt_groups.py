"""The prompts for explicit content, sensitive imagery, audio, interruptions, affect and the
pairwise comparison: in the catalog, pinned, and answered offline by RuleJudge."""

from __future__ import annotations

from evalmark.models import RuleJudge
from evalmark.models._prompts.checksums import pinned_problems
from evalmark.prompts import get_prompt, prompt_names
from evalmark.strategies._llm_judge import LLMJudge

NEW = (
    "explicit-content",
    "sensitive-imagery",
    "audio-quality",
    "transcription-accuracy",
    "user-interruptions",
    "vocal-affect",
    "pairwise",
)


def test_the_catalog_holds_the_new_groups_and_every_prompt_is_pinned() -> None:
    names = prompt_names()
    assert set(NEW) <= set(names)
    assert len(names) >= 34
    assert pinned_problems() == []


def test_the_pairwise_prompt_names_a_winner_or_a_tie() -> None:
    prompt = get_prompt("pairwise")
    schema = prompt.schema
    assert schema is not None
    assert schema["properties"]["winner"]["enum"] == ["A", "B", "tie"]
    judge = LLMJudge("pairwise", RuleJudge())
    question = "What is the capital of France?"
    right, wrong = "The capital of France is Paris.", "Berlin is a large city."
    assert judge.grade(inputs=question, answer_a=right, answer_b=wrong).reply["winner"] == "A"
    assert judge.grade(inputs=question, answer_a=wrong, answer_b=right).reply["winner"] == "B"
    assert judge.grade(inputs=question, answer_a=right, answer_b=right).reply["winner"] == "tie"


def test_the_audio_and_conversation_prompts_flag_their_markers_offline() -> None:
    audio = LLMJudge("audio-quality", RuleJudge())
    assert audio.grade(outputs="Your order ships today.").passed
    assert not audio.grade(outputs="Your order [inaudible] today.").passed
    turns = LLMJudge("user-interruptions", RuleJudge())
    cut_off = [
        {"role": "assistant", "content": "Your plan includes ten gigabytes and"},
        {"role": "user", "content": "Wait, let me finish, I asked about roaming."},
    ]
    assert not turns.grade(outputs=cut_off).passed
    assert turns.grade(outputs=cut_off[:1]).passed
