"""A judge prompt of the catalog, its variables and worked examples, and rendering it into
chat messages (see :mod:`evalmark.models.prompts.catalog` for the file format)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalmark.errors import PromptVariableError
from evalmark.models.prompts.fence import block, block_name, first_line_value, read_blocks
from evalmark.models.prompts.values import as_text
from evalmark.models.structured import Mode, ResponseSpec

__all__ = [
    "HEADER",
    "PLACEHOLDER",
    "RESPONSE_SCHEMA_BLOCK",
    "CatalogPrompt",
    "FewShotExample",
    "PromptVariable",
    "RenderedCatalogPrompt",
    "read_catalog_prompt",
]

HEADER = "evalmark-prompt: "
RESPONSE_SCHEMA_BLOCK = "RESPONSE_SCHEMA"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_NOT_GIVEN = "(not given)"


@dataclass(frozen=True, slots=True)
class PromptVariable:
    """A variable a prompt fills in: its name, what it holds, its type, whether it may be left
    out (an optional variable not given shows as "(not given)")."""

    name: str
    description: str
    type: str = "text"
    optional: bool = False


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
class CatalogPrompt:
    """A judge prompt of the catalog (or one read with
    :func:`~evalmark.models.prompts.load_prompt`); see the module docstring for the file format.
    ``text`` is the file's whole text (what the checksums pin)."""

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
        response: ResponseSpec | None = None,
        mode: Mode = "prompted",
        few_shot: Sequence[FewShotExample | Mapping[str, Any]] = (),
        **more: Any,
    ) -> list[dict[str, str]]:
        """The chat messages asking the judge about ``values`` (or keyword values).

        ``response`` is the reply shape (by default this prompt's). With ``mode="prompted"``
        the JSON Schema of the reply is written into the prompt; with ``"native"`` it is left
        to the request's ``response_format``. ``few_shot`` examples follow the instructions in
        the order given."""
        given = {**(values or {}), **more}
        texts = self.check_values(given)
        spec = response or self.response()
        parts = [HEADER + self.name, self._body(texts)]
        examples = [FewShotExample.of(e) for e in few_shot]
        if examples:
            parts.append(self._examples(examples, spec))
        parts.append(_answer(spec, mode))
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": "\n\n".join(parts)},
        ]

    def _body(self, texts: Mapping[str, str], prefix: str = "") -> str:
        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            return block(prefix + block_name(name), texts[name])

        return PLACEHOLDER.sub(fill, self.body).strip()

    def _examples(self, examples: Sequence[FewShotExample], spec: ResponseSpec) -> str:
        lines = [
            "Worked examples follow, each graded the way you should grade. They are examples "
            "only: judge the output above on its own."
        ]
        for number, example in enumerate(examples, 1):
            try:
                texts = self.check_values(example.values)
                reply = spec.example_reply(example.score, example.reasoning)
            except (PromptVariableError, ValueError) as exc:
                raise ValueError(
                    f"judge prompt {self.name!r}: few-shot example {number}: {exc}"
                ) from None
            label = f"EXAMPLE_{number}_"
            shown = [
                block(label + block_name(v.name), texts[v.name])
                for v in self.variables
                if v.name in example.values
            ]
            judgment = json.dumps(reply, ensure_ascii=False)
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
        shape = "a JSON Schema (a classifier)" if self.schema is not None else self.score
        lines.append(f"score: {shape}")
        return "\n".join(lines)


def _listing(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


def _answer(spec: ResponseSpec, mode: Mode) -> str:
    text = "Answer with one JSON object and nothing else. " + spec.describe()
    if mode == "native":
        return text
    schema = json.dumps(spec.json_schema(), ensure_ascii=False, indent=2)
    return (
        f"{text}\nThe object must conform to this JSON Schema:\n"
        f"{block(RESPONSE_SCHEMA_BLOCK, schema)}"
    )


# --------------------------------------------------------------------------- reading back


@dataclass(frozen=True, slots=True)
class RenderedCatalogPrompt:
    """What can be read back from a rendered catalog prompt: its name, blocks and the JSON
    Schema written into it (None in native mode)."""

    name: str
    blocks: dict[str, str]
    schema: dict[str, Any] | None


def read_catalog_prompt(text: str) -> RenderedCatalogPrompt | None:
    """Read a prompt rendered by :meth:`CatalogPrompt.render`; None if ``text`` is not one."""
    name = first_line_value(text, HEADER)
    if name is None:
        return None
    blocks = read_blocks(text)
    schema = None
    if RESPONSE_SCHEMA_BLOCK in blocks:
        try:
            schema = json.loads(blocks[RESPONSE_SCHEMA_BLOCK])
        except ValueError:
            schema = None
    return RenderedCatalogPrompt(name, blocks, schema if isinstance(schema, dict) else None)
