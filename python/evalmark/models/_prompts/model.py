"""A judge prompt (of the catalog, a line-verdict one, or your own template), its variables and
worked examples, and rendering it into chat messages (see :mod:`evalmark.models._prompts.catalog`
for the file format and :mod:`evalmark.models._prompts.answers` for the parse modes)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalmark.errors import PromptVariableError
from evalmark.models._prompts.answers import (
    PARSE_MODES,
    RESPONSE_SCHEMA_BLOCK,
    ParseMode,
    answer_instruction,
    example_judgment,
    join_answer,
)
from evalmark.models._prompts.fence import block, block_name, first_line_value, read_blocks
from evalmark.models._prompts.values import as_text
from evalmark.models._structured import Mode, ResponseSpec

__all__ = [
    "HEADER",
    "HEADERS",
    "LINE_HEADER",
    "PLACEHOLDER",
    "RESPONSE_SCHEMA_BLOCK",
    "FewShotExample",
    "JudgePrompt",
    "PromptVariable",
    "RenderedPrompt",
    "read_prompt",
]

HEADER = "evalmark-prompt: "  # the first line of a rendered catalog prompt, then its name
LINE_HEADER = "evalmark-judge: "  # that of a line-verdict prompt (the bytes cassettes hold)
HEADERS = (HEADER, LINE_HEADER)
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_NOT_GIVEN = "(not given)"


@dataclass(frozen=True, slots=True)
class PromptVariable:
    """A variable a prompt fills in: its name, what it holds, its type, whether it may be left
    out (an optional variable not given shows as "(not given)"), and the name of its block
    (by default the variable's name in capitals)."""

    name: str
    description: str
    type: str = "text"
    optional: bool = False
    label: str = ""

    @property
    def block(self) -> str:
        """The name of the block that holds this variable's value."""
        return self.label or block_name(self.name)


@dataclass(frozen=True, slots=True)
class FewShotExample:
    """A worked example shown to the judge: the variables' values, the right score (for a
    judge with an output schema, the whole right reply) and the reasoning behind it."""

    values: Mapping[str, Any]
    score: Any
    reasoning: str = ""

    @classmethod
    def of(cls, example: FewShotExample | Mapping[str, Any]) -> FewShotExample:
        """An example from a mapping ``{inputs: ..., outputs: ..., score: ..., reasoning: ...}``."""
        if isinstance(example, FewShotExample):
            return example
        if not isinstance(example, Mapping) or "score" not in example:
            raise ValueError(
                "a few-shot example is a mapping of the prompt's variables with a 'score' "
                f"(and optionally 'reasoning'), got {example!r}"
            )
        values = {k: v for k, v in example.items() if k not in ("score", "reasoning")}
        reasoning = example.get("reasoning", "")
        if not isinstance(reasoning, str):
            raise ValueError(f"a few-shot example's reasoning must be text, got {reasoning!r}")
        return cls(values, example["score"], reasoning)


@dataclass(frozen=True, slots=True)
class JudgePrompt:
    """A judge prompt: one of the catalog, one read with :func:`evalmark.prompts.load_prompt`, a
    line-verdict prompt (:data:`~evalmark.models._prompts.PROMPTS`) or your own template
    (:func:`~evalmark.models._prompts.template_prompt`). ``text`` is a file's whole text (what
    the checksums pin).

    ``reply`` is the parse mode it asks for by default (``structured``, ``verdict``, ``grade``
    or ``json``); ``grades`` the scale of a graded reply; ``header`` the first line of a
    rendered prompt (followed by the name; empty for none). A ``fenced`` prompt puts each
    value into a block and ends with the instruction of its parse mode; a plain template
    (``fenced=False``, your own string) is one user message with the values as they are.
    """

    name: str
    group: str
    title: str
    summary: str
    system: str
    body: str
    variables: tuple[PromptVariable, ...]
    score: str = "bool"
    schema: Mapping[str, Any] | None = None
    rule: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    text: str = ""
    reply: ParseMode = "structured"
    grades: tuple[int, int] = (1, 5)
    header: str = HEADER
    fenced: bool = True

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Every variable, in the order declared."""
        return tuple(v.name for v in self.variables)

    @property
    def required(self) -> tuple[str, ...]:
        """The variables that must be given."""
        return tuple(v.name for v in self.variables if not v.optional)

    def variable(self, name: str) -> PromptVariable:
        """The declared variable ``name`` (KeyError if there is none)."""
        for variable in self.variables:
            if variable.name == name:
                return variable
        raise KeyError(name)

    def response(self, **options: Any) -> ResponseSpec:
        """The reply shape for these options (see :meth:`ResponseSpec.build`) with this
        prompt's defaults."""
        return ResponseSpec.build(default=self.score, default_schema=self.schema, **options)

    # ------------------------------------------------------------------ rendering

    def check_values(self, values: Mapping[str, Any]) -> dict[str, str]:
        """The text of each variable; :class:`PromptVariableError` for a value missing, of a
        variable the prompt does not declare, or of a type that cannot be shown."""
        declared = self.variable_names
        for name in values:
            if name not in declared:
                raise PromptVariableError(
                    self.name,
                    str(name),
                    "unknown",
                    f"judge prompt {self.name!r} has no variable {name!r}; its variables are "
                    f"{_listing(declared)}",
                )
        texts: dict[str, str] = {}
        for variable in self.variables:
            value = values.get(variable.name)
            if value is None:
                if variable.optional:
                    texts[variable.name] = _NOT_GIVEN
                    continue
                missing = [n for n in self.required if values.get(n) is None]
                raise PromptVariableError(
                    self.name,
                    variable.name,
                    "missing",
                    f"judge prompt {self.name!r} needs {_listing(self.required)}; missing "
                    f"{_listing(missing)}",
                )
            text = as_text(value, variable.type)
            if text is None:
                raise PromptVariableError(
                    self.name,
                    variable.name,
                    "type",
                    f"judge prompt {self.name!r}: variable {variable.name!r} cannot show a "
                    f"value of type {type(value).__name__}; give text, a list or a JSON-like "
                    "value",
                )
            texts[variable.name] = text
        return texts

    def render(
        self,
        values: Mapping[str, Any] | None = None,
        /,
        *,
        shape: ResponseSpec | None = None,
        mode: Mode = "prompted",
        few_shot: Sequence[FewShotExample | Mapping[str, Any]] = (),
        parse: ParseMode | None = None,
        **more: Any,
    ) -> list[dict[str, str]]:
        """The chat messages asking the judge about ``values`` (or keyword values).

        ``parse`` is the parse mode (by default the prompt's ``reply``); ``shape`` the reply
        shape of the ``structured`` mode (by default this prompt's). With ``mode="prompted"``
        the JSON Schema of a structured reply is written into the prompt; with ``"native"`` it
        is left to the request's ``response_format``. ``few_shot`` examples follow the
        instructions in the order given."""
        parse = parse or self.reply
        if parse not in PARSE_MODES:
            raise ValueError(f"parse must be one of {', '.join(PARSE_MODES)}, got {parse!r}")
        texts = self.check_values({**(values or {}), **more})
        spec = shape or self.response()
        examples = [FewShotExample.of(e) for e in few_shot]
        parts = [self.header + self.name] if self.header else []
        parts.append(self._body(texts))
        if examples:
            parts.append(self.examples_text(examples, spec, parse))
        content = "\n\n".join(parts)
        if self.fenced:
            instruction = answer_instruction(parse, spec, mode, self.grades)
            content = join_answer(content, instruction, parse, follows_body=not examples)
        messages = [{"role": "system", "content": self.system}] if self.system else []
        return [*messages, {"role": "user", "content": content}]

    def _body(self, texts: Mapping[str, str], prefix: str = "") -> str:
        if not self.fenced:
            return self.body.format_map(texts)
        blocks = {v.name: v.block for v in self.variables}

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            return block(prefix + blocks[name], texts[name])

        return PLACEHOLDER.sub(fill, self.body).strip()

    def examples_text(
        self, examples: Sequence[FewShotExample], spec: ResponseSpec, parse: ParseMode
    ) -> str:
        """The worked examples as shown to the judge, each answer in ``parse`` mode; a
        ValueError naming the example whose variables or score do not fit."""
        lines = [
            "Worked examples follow, each graded the way you should grade. They are examples "
            "only: judge the output above on its own."
        ]
        for number, example in enumerate(examples, 1):
            try:
                texts = self.check_values(example.values)
                judgment = example_judgment(
                    parse, spec, example.score, example.reasoning, self.grades
                )
            except (PromptVariableError, ValueError) as exc:
                raise ValueError(
                    f"judge prompt {self.name!r}: few-shot example {number}: {exc}"
                ) from None
            label = f"EXAMPLE_{number}_"
            shown = [
                block(label + v.block, texts[v.name])
                for v in self.variables
                if v.name in example.values
            ]
            lines.append(
                f"Example {number}:\n"
                + "\n".join(shown)
                + "\n"
                + block(label + "JUDGMENT", judgment)
            )
        return "\n\n".join(lines)

    def describe(self) -> str:
        """A few lines a person reads: name, group, summary, variables, default score."""
        lines = [f"{self.name} ({self.group}): {self.title}", self.summary, "", "variables:"]
        for v in self.variables:
            extra = ", optional" if v.optional else ""
            lines.append(f"  {v.name} ({v.type}{extra}): {v.description}")
        if self.reply != "structured":
            lines.append(f"reply: {self.reply} (parse mode; see evalmark.models._prompts.answers)")
        else:
            shape = "a JSON Schema (a classifier)" if self.schema is not None else self.score
            lines.append(f"score: {shape}")
        return "\n".join(lines)


def _listing(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


# --------------------------------------------------------------------------- reading back


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """What can be read back from a rendered judge prompt: its name, its blocks and the JSON
    Schema written into it (None when there is none, e.g. in native mode)."""

    name: str
    blocks: dict[str, str]
    schema: dict[str, Any] | None


def read_prompt(text: str) -> RenderedPrompt | None:
    """Read a prompt rendered by :meth:`JudgePrompt.render` back: the one reader of the
    rendered prompts' header line (any of :data:`HEADERS`) and blocks. None if ``text`` is
    not one (a template of your own has no header)."""
    for header in HEADERS:
        name = first_line_value(text, header)
        if name is not None:
            break
    else:
        return None
    blocks = read_blocks(text)
    schema = None
    if RESPONSE_SCHEMA_BLOCK in blocks:
        try:
            schema = json.loads(blocks[RESPONSE_SCHEMA_BLOCK])
        except ValueError:
            schema = None
    return RenderedPrompt(name, blocks, schema if isinstance(schema, dict) else None)
