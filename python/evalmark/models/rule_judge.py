"""``RuleJudge``: a deterministic word-overlap judge for evalmark's own judge prompts.

It is a stand-in for tests and demos, not a judge of meaning. Known, pinned failures:

* it **accepts a dropped negation**: negation words are function words here, so "the drug is
  approved" is supported by "the drug is not approved";
* it **rejects a correct paraphrase**: "the meeting was postponed" shares too few words with
  "the meeting was delayed to a later date";
* it ignores word order, so "Alice paid Bob" is supported by "Bob paid Alice";
* a wrong number is one missing word among several, so "the tower is 500 metres" passes against
  "the tower is 330 metres tall" (3 of 4 content words match).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.models.prompts import PROMPTS, JudgePrompt, read_prompt
from evalmark.models.values import ChatReply, MessageLike, last_user_text, message_dicts

_STOPWORD_TEXT = """
    a an the and or but if then else of to in on at by for with from into onto as about
    is are was were be been being am do does did doing have has had having will would shall
    should can could may might must it its it's this that these those there here which who
    whom whose what when where why how i me my we our you your he him his she her they them
    their not no nor never none n't s t so than too very also just only any all each
    some such own same other more most both either neither
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+")


def content_words(text: str) -> list[str]:
    """The content words and numbers of ``text``: NFKC, case-folded, stop words dropped;
    thousands separators removed from numbers (``1,000`` → ``1000``)."""
    words: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if token[0].isdigit():
            token = re.sub(r",(?=\d{3}\b)", "", token)
        if token not in STOPWORDS:
            words.append(token)
    return words


def overlap(claim: str, evidence: str) -> tuple[float, list[str]]:
    """(share of the claim's distinct content words found in the evidence, the missing ones).

    A claim without content words has overlap 1.0.
    """
    wanted = list(dict.fromkeys(content_words(claim)))
    if not wanted:
        return 1.0, []
    present = set(content_words(evidence))
    missing = [word for word in wanted if word not in present]
    return (len(wanted) - len(missing)) / len(wanted), missing


class RuleJudge:
    """A deterministic judge that reads the claim and the evidence out of an evalmark judge
    prompt (see :mod:`evalmark.models.prompts`) and answers by word overlap.

    Binary prompts: ``VERDICT: yes`` when at least ``min_overlap`` of the claim's content words
    and numbers appear in the evidence, else ``VERDICT: no``. Graded prompts: ``GRADE: g`` with
    g = 1 + round(4 × overlap). The overlap is in the reply's metadata. Lexical only; see the
    module docstring for what it gets wrong.
    """

    model_id = "rule-judge"

    def __init__(self, min_overlap: float = 0.6) -> None:
        if not 0.0 <= min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be in [0, 1], got {min_overlap}")
        self.min_overlap = min_overlap

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Its threshold, so cassettes of different thresholds never mix."""
        return {"min_overlap": self.min_overlap}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Judge the prompt in the last user message."""
        text = last_user_text(message_dicts(messages)) or ""
        rendered = read_prompt(text)
        if rendered is None:
            raise ValueError(
                "RuleJudge reads only evalmark's own judge prompts (evalmark.models.prompts): "
                "the last user message has no 'evalmark-judge:' header line"
            )
        prompt = PROMPTS.get(rendered.name)
        if prompt is None:
            raise ValueError(
                f"RuleJudge does not know the judge prompt {rendered.name!r}; it knows "
                f"{', '.join(sorted(PROMPTS))}"
            )
        for block in (prompt.claim_block, prompt.evidence_block):
            if block not in rendered.blocks:
                raise ValueError(f"the {rendered.name} prompt has no {block} block")
        share, missing = overlap(
            rendered.blocks[prompt.claim_block], rendered.blocks[prompt.evidence_block]
        )
        return ChatReply(text=self._answer(prompt, share, missing), metadata={"overlap": share})

    def _answer(self, prompt: JudgePrompt, share: float, missing: list[str]) -> str:
        found = (
            f"{share:.0%} of the content words of the {prompt.claim_block.lower()} appear in "
            f"the {prompt.evidence_block.lower()}"
        )
        if missing:
            found += f"; missing: {', '.join(missing[:10])}"
        if prompt.kind == "graded":
            low, high = min(prompt.grades), max(prompt.grades)
            grade = min(high, max(low, low + math.floor((high - low) * share + 0.5)))
            return f"{found}.\nGRADE: {grade}"
        verdict = "yes" if share >= self.min_overlap else "no"
        return f"{found}.\nVERDICT: {verdict}"

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)
