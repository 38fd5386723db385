"""``RuleJudge``: a deterministic word-overlap judge for evalmark's own judge prompts.

It answers the line-verdict templates (``VERDICT: yes|no``, ``GRADE: n``) and every prompt of
the catalog (a JSON reply of the shape asked for; see :mod:`evalmark.models.rule_catalog` for
the rule of each). It is a stand-in for tests and demos, not a judge of meaning. Known,
pinned failures:

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
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.models.lexical import STOPWORDS, content_words, overlap
from evalmark.models.prompts import PROMPTS, JudgePrompt, read_prompt
from evalmark.models.prompts.catalog import get_prompt
from evalmark.models.prompts.model import read_catalog_prompt
from evalmark.models.rule_catalog import answer_catalog_prompt
from evalmark.models.values import ChatReply, MessageLike, last_user_text, message_dicts

__all__ = ["STOPWORDS", "RuleJudge", "content_words", "overlap"]


class RuleJudge:
    """A deterministic judge that reads the claim and the evidence out of an evalmark judge
    prompt (see :mod:`evalmark.models.prompts`) and answers by word overlap.

    Catalog prompts (``evalmark-prompt:`` header): the prompt's rule, answered as a JSON object
    of the requested shape. Binary templates: ``VERDICT: yes`` when at least ``min_overlap``
    of the claim's content words and numbers appear in the evidence, else ``VERDICT: no``.
    Graded templates: ``GRADE: g`` with g = 1 + round(4 × overlap). The overlap is in the
    reply's metadata. Lexical only; see the module docstring for what it gets wrong.
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
        catalog = read_catalog_prompt(text)
        if catalog is not None:
            try:
                prompt_of_catalog = get_prompt(catalog.name)
            except KeyError as exc:
                raise ValueError(f"RuleJudge: {exc.args[0]}") from None
            answer, metadata = answer_catalog_prompt(
                prompt_of_catalog, catalog, params, self.min_overlap
            )
            return ChatReply(text=answer, metadata=metadata)
        rendered = read_prompt(text)
        if rendered is None:
            raise ValueError(
                "RuleJudge reads only evalmark's own judge prompts (evalmark.models.prompts): "
                "the last user message has no 'evalmark-judge:' or 'evalmark-prompt:' header "
                "line"
            )
        prompt = PROMPTS.get(rendered.name)
        if prompt is None:
            raise ValueError(
                f"RuleJudge does not know the judge prompt {rendered.name!r}; it knows "
                f"{', '.join(sorted(PROMPTS))}"
            )
        claim, evidence = str(prompt.rule["claim"]), str(prompt.rule["evidence"])
        for block in (claim, evidence):
            if block not in rendered.blocks:
                raise ValueError(f"the {rendered.name} prompt has no {block} block")
        share, missing = overlap(rendered.blocks[claim], rendered.blocks[evidence])
        return ChatReply(text=self._answer(prompt, share, missing), metadata={"overlap": share})

    def _answer(self, prompt: JudgePrompt, share: float, missing: list[str]) -> str:
        claim, evidence = str(prompt.rule["claim"]), str(prompt.rule["evidence"])
        found = (
            f"{share:.0%} of the content words of the {claim.lower()} appear in "
            f"the {evidence.lower()}"
        )
        if missing:
            found += f"; missing: {', '.join(missing[:10])}"
        if prompt.reply == "grade":
            low, high = prompt.grades
            grade = min(high, max(low, low + math.floor((high - low) * share + 0.5)))
            return f"{found}.\nGRADE: {grade}"
        verdict = "yes" if share >= self.min_overlap else "no"
        return f"{found}.\nVERDICT: {verdict}"

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)
