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

# RELEVANCY, GROUNDEDNESS, AGREEMENT and RUBRIC are read on first use (``__getattr__``).
__all__ = [
    "CATALOG",
    "CATALOG_DIR",
    "GROUPS",
    "LINE_VERDICT",
    "PROMPTS",
    "get_prompt",
    "prompt_names",
]

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"
GROUPS: tuple[str, ...] = ("quality", "rag", "safety", "security", "trajectory", "conversation")


LINE_VERDICT = ("relevancy", "groundedness", "agreement", "rubric")
_CONSTANTS = {name.upper(): name for name in LINE_VERDICT}  # RELEVANCY, ... (read on first use)


class _Catalog(Mapping[str, JudgePrompt]):
    """The catalog: each prompt read from ``CATALOG_DIR`` on first use, then kept
    (thread-safe)."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()
        self._prompts: dict[str, JudgePrompt] = {}
        self._all: dict[str, JudgePrompt] | None = None

    def _read(self, name: str) -> JudgePrompt:
        with self._lock:
            prompt = self._prompts.get(name)
            if prompt is None:
                path = self._directory / f"{name}.md"
                prompt = load_prompt(path)
                if prompt.name != name:
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
                self._prompts[name] = prompt
            return prompt

    def _load(self) -> dict[str, JudgePrompt]:
        if self._all is None:
            self._all = {name: self._read(name) for name in self.names()}
        return self._all

    def names(self) -> tuple[str, ...]:
        """The prompt names, from the file names (nothing is parsed)."""
        return tuple(sorted(path.stem for path in self._directory.glob("*.md")))

    def __getitem__(self, name: str) -> JudgePrompt:
        prompt = self._prompts.get(name)
        if prompt is not None:
            return prompt
        if not isinstance(name, str) or name not in self.names():
            raise KeyError(name)
        return self._read(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __repr__(self) -> str:
        return f"CATALOG({', '.join(self.names())})"


CATALOG: _Catalog = _Catalog(CATALOG_DIR)


class _Subset(Mapping[str, JudgePrompt]):
    """Some prompts of the catalog, by name, each read on first use."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names

    def __getitem__(self, name: str) -> JudgePrompt:
        if name not in self._names:
            raise KeyError(name)
        return CATALOG[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


# The line-verdict prompts (catalog files answered by a VERDICT or GRADE line).
PROMPTS: Mapping[str, JudgePrompt] = _Subset(LINE_VERDICT)


def __getattr__(name: str) -> JudgePrompt:
    """``RELEVANCY``, ``GROUNDEDNESS``, ``AGREEMENT`` and ``RUBRIC``: the line-verdict prompts,
    read on first use."""
    if name in _CONSTANTS:
        return CATALOG[_CONSTANTS[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_prompt(prompt: str | JudgePrompt) -> JudgePrompt:
    """The judge prompt of the catalog named ``prompt`` (a prompt object is returned as is); a
    KeyError listing them, with the closest name, otherwise."""
    if isinstance(prompt, JudgePrompt):
        return prompt
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
