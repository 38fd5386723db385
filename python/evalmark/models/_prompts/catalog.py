"""The catalog of judge prompts: Markdown files with a YAML front matter, read on first use.

A prompt file looks like this::

    ---
    name: conciseness
    group: quality
    title: Conciseness
    summary: Does the answer say what is needed and nothing more?
    system: You review answers for length and focus.
    variables:
      inputs: the question the application was asked
      outputs: the application's answer
    score: bool
    rule: {kind: words, max-words: 60}
    ---
    (instructions, with {{inputs}} and {{outputs}} where the values go)

``variables`` maps each variable to a description, or to ``{description, type, optional}``;
``type`` is ``text`` (the default), ``passages``, ``conversation``, ``trajectory`` or ``json``.
Every ``{{name}}`` of the body must be declared and every declared variable must appear.
``score`` is the shape the prompt asks for by default (``bool`` or ``continuous``); a
classifier gives a ``schema`` (a JSON Schema) instead. ``rule`` tells ``RuleJudge`` how to
answer the prompt offline. A rendered prompt is a system message and a user message that
starts with ``evalmark-prompt: <name>``; each value sits in a fenced block (see
:mod:`evalmark.models._prompts.fence`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from evalmark._files.problems import suggest
from evalmark.errors import Problem, PromptFileError
from evalmark.models._prompts.files import load_prompt
from evalmark.models._prompts.model import JudgePrompt
from evalmark.models._prompts.templates import PROMPTS

__all__ = ["CATALOG", "CATALOG_DIR", "GROUPS", "get_prompt", "prompt_names"]

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"
GROUPS: tuple[str, ...] = ("quality", "rag", "safety", "security", "trajectory", "conversation")


class _Catalog(Mapping[str, JudgePrompt]):
    """The catalog: read from ``CATALOG_DIR`` on first use, then kept (thread-safe)."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()
        self._prompts: dict[str, JudgePrompt] | None = None

    def _load(self) -> dict[str, JudgePrompt]:
        prompts = self._prompts
        if prompts is not None:
            return prompts
        with self._lock:
            if self._prompts is None:
                loaded: dict[str, JudgePrompt] = {}
                for path in sorted(self._directory.glob("*.md")):
                    prompt = load_prompt(path)
                    if prompt.name != path.stem:
                        raise PromptFileError(
                            [
                                Problem(
                                    f"the prompt is named {prompt.name!r}; name the file "
                                    f"{prompt.name}.md",
                                    path=str(path),
                                    record="name",
                                )
                            ]
                        )
                    loaded[prompt.name] = prompt
                self._prompts = loaded
            return self._prompts

    def names(self) -> tuple[str, ...]:
        """The prompt names, from the file names (nothing is parsed)."""
        return tuple(sorted(path.stem for path in self._directory.glob("*.md")))

    def __getitem__(self, name: str) -> JudgePrompt:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __repr__(self) -> str:
        return f"CATALOG({', '.join(self.names())})"


CATALOG: _Catalog = _Catalog(CATALOG_DIR)


def get_prompt(prompt: str | JudgePrompt) -> JudgePrompt:
    """The judge prompt named ``prompt``: a line-verdict prompt (:data:`PROMPTS`) or one of the
    catalog (a prompt object is returned as is); a KeyError listing them, with the closest
    name, otherwise."""
    if isinstance(prompt, JudgePrompt):
        return prompt
    if prompt in PROMPTS:
        return PROMPTS[prompt]
    try:
        return CATALOG[prompt]
    except KeyError:
        names = [*CATALOG, *PROMPTS]
        close = suggest(str(prompt), names)
        hint = f"did you mean {close!r}? " if close else ""
        raise KeyError(
            f"no judge prompt named {prompt!r}; {hint}the prompts are "
            f"{', '.join(sorted(names))} (evalmark prompts ls)"
        ) from None


def prompt_names() -> tuple[str, ...]:
    """Every judge prompt's name, sorted: the catalog's and the line-verdict ones (each name
    means one prompt)."""
    return tuple(sorted({*CATALOG.names(), *PROMPTS}))
