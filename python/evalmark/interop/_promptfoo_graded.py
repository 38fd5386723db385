"""promptfoo's grading prompts: an ``llm-rubric`` assertion graded with the prompt the user
wrote (``rubricPrompt`` on the assertion, else in the test's ``options``, else in
``defaultTest.options``), carried verbatim.

The prompt is the user's, so it is kept as written (an object or a list, a chat prompt, as its
JSON text, as promptfoo does); the ``promptfoo-asserts`` check substitutes ``{{ output }}``,
``{{ rubric }}`` and the test's vars when it grades. A prompt using Nunjucks beyond
``{{ name }}`` is refused (``prompt-template``); a prompt from a JavaScript or Python file, or
an option other than ``rubricPrompt``, is refused (``test.options``).

Without a prompt in the file, promptfoo grades with its built-in template, which evalmark does
not copy: ``llm-rubric`` is then graded with evalmark's own wording of the request, and the
other model-graded types (``factuality``, ``g-eval``, ``model-graded-closedqa``...) are
refused, since promptfoo also reads their grades its own way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalmark.interop._promptfoo_reader import Reader, render

__all__ = ["MODEL_GRADED", "graded_refusal", "options_rubric_prompt", "rubric_prompt"]

MODEL_GRADED = frozenset(
    {
        "factuality",
        "g-eval",
        "model-graded-closedqa",
        "model-graded-factuality",
        "answer-relevance",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "select-best",
        "search-rubric",
    }
)
"""promptfoo's model-graded types other than ``llm-rubric`` (each also with ``not-``)."""


def graded_refusal(kind: str) -> str:
    """Why a model-graded assertion other than ``llm-rubric`` is refused, and what to do."""
    return (
        f"model-graded assertion type {kind!r} is graded by promptfoo's built-in prompt, which "
        "is not in this file and which evalmark does not copy, and its grade is read promptfoo's "
        "own way; write it as an llm-rubric assertion (with your rubricPrompt, if you have one) "
        "to have the suite's judge grade it"
    )


def _prompt_text(reader: Reader, prompt: Any, where: tuple[str | int, ...]) -> str | None:
    """The prompt as promptfoo sends it to the grader: a text as written (a ``file://`` text
    or JSON file read), an object or list as its JSON. None after a refused loss."""
    if isinstance(prompt, Mapping | list):
        return json.dumps(prompt, ensure_ascii=False, separators=(",", ":"))
    if not isinstance(prompt, str):
        raise reader.error("rubricPrompt must be text, a list of messages or a mapping", where)
    text: str = prompt
    if text.startswith("file://"):
        ref = text.removeprefix("file://")
        if ref.endswith((".js", ".ts", ".mjs", ".cjs", ".py")) or ":" in ref:
            reader.refuse("test.options", "a rubricPrompt made by code is not carried", where)
            return None
        path = reader.path.parent / ref
        reader.files.append(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise reader.error(f"rubricPrompt file {ref!r} cannot be read: {exc}", where) from None
    render(reader, text, {}, where)  # refuses Nunjucks beyond {{ name }}
    return text


def options_rubric_prompt(reader: Reader, test: Mapping[str, Any], where: Any) -> str | None:
    """The ``rubricPrompt`` of a test's (or ``defaultTest``'s) ``options``; any other option
    is refused as ``test.options``."""
    options = test.get("options")
    if options is None:
        return None
    at = (*where, "options")
    if not isinstance(options, Mapping) or set(options) - {"rubricPrompt"}:
        reader.refuse(
            "test.options",
            "test options other than rubricPrompt (a grader provider, a transform...) are not "
            "carried",
            at,
        )
        return None
    if "rubricPrompt" not in options:
        return None
    return _prompt_text(reader, options["rubricPrompt"], (*at, "rubricPrompt"))


def rubric_prompt(
    reader: Reader, item: Mapping[str, Any], inherited: str | None, at: tuple[str | int, ...]
) -> str | None:
    """The grading prompt of an ``llm-rubric`` assertion: its own ``rubricPrompt``, else the
    one its test's options give (``inherited``)."""
    if "rubricPrompt" in item:
        return _prompt_text(reader, item["rubricPrompt"], (*at, "rubricPrompt"))
    return inherited
