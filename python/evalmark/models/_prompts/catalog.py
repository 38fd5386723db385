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

``variables`` maps each variable to a description, or to ``{description, type, optional,
label}``; ``type`` is ``text`` (the default), ``passages``, ``conversation``, ``trajectory`` or
``json``; ``label`` names the variable's block (default: its name in capitals).
Every ``{{name}}`` of the body must be declared and every declared variable must appear.
``score`` is the shape the prompt asks for by default (``bool`` or ``continuous``); a
classifier gives a ``schema`` (a JSON Schema) instead. ``rule`` tells ``RuleJudge`` how to
answer the prompt offline. ``reply`` is the parse mode asked for by default (``structured``,
the default, ``verdict``, ``grade`` or ``json``). A rendered prompt is a system message and a
user message that starts with ``evalmark-prompt: <name>`` (``header: evalmark-judge`` for the
line-verdict prompts, whose recorded bytes start so); each value sits in a fenced block (see
:mod:`evalmark.models._prompts.fence`). ``catalog.sha256`` pins every file
(:mod:`evalmark.models._prompts.checksums`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from evalmark._files.problems import suggest
from evalmark.errors import Problem, PromptFileError
from evalmark.models._prompts.files import load_prompt
from evalmark.models._prompts.model import JudgePrompt

__all__ = [
    "AGREEMENT",
    "CATALOG",
    "CATALOG_DIR",
    "GROUNDEDNESS",
    "GROUPS",
    "PROMPTS",
    "RELEVANCY",
    "RUBRIC",
    "get_prompt",
    "prompt_names",
]

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"
GROUPS: tuple[str, ...] = ("quality", "rag", "safety", "security", "trajectory", "conversation")


# The line-verdict prompts: read when this module is imported, since the suite checks of the
# same names use them; the rest of the catalog is read on first use.
PROMPTS: Mapping[str, JudgePrompt] = {
    name: load_prompt(CATALOG_DIR / f"{name}.md")
    for name in ("relevancy", "groundedness", "agreement", "rubric")
}
RELEVANCY = PROMPTS["relevancy"]
GROUNDEDNESS = PROMPTS["groundedness"]
AGREEMENT = PROMPTS["agreement"]
RUBRIC = PROMPTS["rubric"]


class _Catalog(Mapping[str, JudgePrompt]):
    """The catalog: read from ``CATALOG_DIR`` on first use, then kept (thread-safe); the
    prompts of ``read`` are not read again."""

    def __init__(self, directory: Path, read: Mapping[str, JudgePrompt]) -> None:
        self._directory = directory
        self._read = read
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
                    prompt = self._read.get(path.stem) or load_prompt(path)
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


CATALOG: _Catalog = _Catalog(CATALOG_DIR, PROMPTS)


def get_prompt(prompt: str | JudgePrompt) -> JudgePrompt:
    """The judge prompt of the catalog named ``prompt`` (a prompt object is returned as is); a
    KeyError listing them, with the closest name, otherwise."""
    if isinstance(prompt, JudgePrompt):
        return prompt
    if prompt in PROMPTS:
        return PROMPTS[prompt]
    try:
        return CATALOG[prompt]
    except KeyError:
        names = list(CATALOG.names())
        close = suggest(str(prompt), names)
        hint = f"did you mean {close!r}? " if close else ""
        raise KeyError(
            f"no judge prompt named {prompt!r}; {hint}the prompts are "
            f"{', '.join(sorted(names))} (evalmark prompts ls)"
        ) from None


def prompt_names() -> tuple[str, ...]:
    """Every judge prompt's name, sorted (the line-verdict ones are the catalog's too; each
    name means one prompt)."""
    return CATALOG.names()
