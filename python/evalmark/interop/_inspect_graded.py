"""Why inspect_ai's model-graded scorers are refused, in words that say what to do.

``model_graded_qa`` and ``model_graded_fact`` ask a grader model with a prompt. When the log's
scorer params hold no ``template`` (or use the ``{instructions}`` slot without
``instructions``), the prompt is inspect's built-in one: it is not in the log, and evalmark
does not copy another tool's prompt text. A template recorded in the log is the user's, but
importing it (with inspect's ``grade_pattern`` reading of the grade) is not done yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["graded_scorer_refusal"]

_GRADED = frozenset({"model_graded_qa", "model_graded_fact"})


def graded_scorer_refusal(scorer: str, params: Mapping[str, Any]) -> str | None:
    """The refusal of a model-graded ``scorer`` (None for another scorer)."""
    if scorer.rpartition("/")[2] not in _GRADED:
        return None
    template = params.get("template")
    built_in = not isinstance(template, str) or (
        "{instructions}" in template and not isinstance(params.get("instructions"), str)
    )
    if built_in:
        return (
            f"scorer {scorer!r} grades with inspect's built-in prompt, which is not in the log "
            "and which evalmark does not copy; give the suite a judge check of your own "
            "(--check) for it, and import without it (its recorded scores stay in the metadata)"
        )
    return (
        f"scorer {scorer!r} grades with the template recorded in the log, whose import "
        "(with inspect's grade_pattern reading of the grade) evalmark does not do yet; give "
        "the suite a judge check of your own (--check) with that template, and import without "
        "it (its recorded scores stay in the metadata)"
    )
