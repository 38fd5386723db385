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
:mod:`evalmark.models.prompts.fence`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalmark.errors import Problem, PromptFileError, PromptVariableError
from evalmark.models.prompts.fence import block, block_name, first_line_value, read_blocks
from evalmark.models.prompts.values import VARIABLE_TYPES, as_text
from evalmark.models.structured import Mode, ResponseSpec

__all__ = [
    "CATALOG",
    "CATALOG_DIR",
    "GROUPS",
    "HEADER",
    "CatalogPrompt",
    "FewShotExample",
    "PromptVariable",
    "get_prompt",
    "load_prompt",
    "parse_prompt",
    "read_catalog_prompt",
]

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"
GROUPS: tuple[str, ...] = ("quality", "rag", "safety", "security", "trajectory", "conversation")
HEADER = "evalmark-prompt: "
RESPONSE_SCHEMA_BLOCK = "RESPONSE_SCHEMA"

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_KEYS = ("name", "group", "title", "summary", "system", "variables", "score", "schema", "rule")
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
    """A judge prompt of the catalog (or one read with :func:`load_prompt`); see the module
    docstring for the file format. ``text`` is the file's whole text (what the checksums pin)."""

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
                    f"{type(value).__name__}; give text, a list or a JSON-like value",
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

        return _PLACEHOLDER.sub(fill, self.body).strip()

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


# --------------------------------------------------------------------------- files


def parse_prompt(text: str, source: str = "<prompt>") -> CatalogPrompt:
    """A prompt from the text of a prompt file; :class:`PromptFileError` naming ``source``,
    the line and the field when it is malformed."""
    problems: list[Problem] = []

    def problem(message: str, line: int | None = None, record: str | None = None) -> None:
        problems.append(Problem(message, path=source, line=line, record=record))

    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        raise PromptFileError(
            [
                Problem(
                    "a prompt file starts with a '---' line, then the front matter",
                    path=source,
                    line=1,
                )
            ]
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise PromptFileError(
            [Problem("the front matter has no closing '---' line", path=source, line=1)]
        ) from None
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        raise PromptFileError(
            [Problem(f"the front matter is not valid YAML: {exc}", path=source, line=line)]
        ) from None
    if not isinstance(meta, dict):
        raise PromptFileError(
            [Problem("the front matter must be a mapping of fields", path=source, line=2)]
        )
    key_lines = {
        line.split(":", 1)[0].strip(): number + 2
        for number, line in enumerate(lines[1:end])
        if line and not line[0].isspace() and ":" in line
    }
    for key in meta:
        if key not in _KEYS:
            problem(
                f"unknown field; the fields are {', '.join(_KEYS)}",
                key_lines.get(str(key)),
                str(key),
            )
    texts: dict[str, str] = {}
    for key in ("name", "title", "summary", "system"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            problem("expected non-empty text", key_lines.get(key, 2), key)
        else:
            texts[key] = value.strip()
    name = texts.get("name", "")
    if name and not _NAME.match(name):
        problem(
            "a prompt name is lower case letters, digits and dashes", key_lines.get("name"), "name"
        )
    group = meta.get("group", "custom")
    if not isinstance(group, str) or not group:
        problem("expected a group name", key_lines.get("group"), "group")
        group = "custom"
    body = "\n".join(lines[end + 1 :]).strip("\n") + "\n"
    variables = _variables(meta.get("variables"), problem, key_lines.get("variables", 2))
    used = list(dict.fromkeys(_PLACEHOLDER.findall(body)))
    declared = [v.name for v in variables]
    for variable in used:
        if variable not in declared:
            line = end + 2 + body[: body.find(variable)].count("\n")
            problem(
                f"the text uses {{{{{variable}}}}}, which is not declared under variables",
                line,
                "variables",
            )
    for variable in declared:
        if variable not in used:
            problem(
                f"variable {variable!r} is declared but the text never uses {{{{{variable}}}}}",
                key_lines.get("variables"),
                "variables",
            )
    score = meta.get("score", "bool")
    if score not in ("bool", "continuous"):
        problem("expected 'bool' or 'continuous'", key_lines.get("score"), "score")
    schema = meta.get("schema")
    if schema is not None and not isinstance(schema, dict):
        problem("expected a JSON Schema (a mapping)", key_lines.get("schema"), "schema")
    rule = meta.get("rule", {})
    if not isinstance(rule, dict) or ("kind" not in rule and rule):
        problem("expected a mapping with a 'kind'", key_lines.get("rule"), "rule")
        rule = {}
    if problems:
        raise PromptFileError(problems)
    return CatalogPrompt(
        name=name,
        group=group,
        title=texts["title"],
        summary=texts["summary"],
        system=texts["system"],
        body=body,
        variables=variables,
        score=str(score),
        schema=schema,
        rule=rule,
        source=source,
        text=text,
    )


def _variables(value: Any, problem: Any, line: int) -> tuple[PromptVariable, ...]:
    if not isinstance(value, dict) or not value:
        problem("expected a mapping of variable names to descriptions", line, "variables")
        return ()
    out: list[PromptVariable] = []
    for name, spec in value.items():
        where = f"variables.{name}"
        if not isinstance(name, str) or not re.match(r"^[a-z_][a-z0-9_]*$", name):
            problem("a variable name is lower case letters, digits and underscores", line, where)
            continue
        if isinstance(spec, str):
            spec = {"description": spec}
        if not isinstance(spec, dict) or not isinstance(spec.get("description"), str):
            problem("expected a description, or {description, type, optional}", line, where)
            continue
        unknown = set(spec) - {"description", "type", "optional"}
        if unknown:
            problem(f"unknown key(s) {', '.join(sorted(unknown))}", line, where)
        kind = spec.get("type", "text")
        if kind not in VARIABLE_TYPES:
            problem(f"type must be one of {', '.join(VARIABLE_TYPES)}", line, where)
            kind = "text"
        optional = spec.get("optional", False)
        if not isinstance(optional, bool):
            problem("optional must be true or false", line, where)
            optional = False
        out.append(PromptVariable(name, spec["description"].strip(), kind, optional))
    return tuple(out)


def load_prompt(path: str | Path) -> CatalogPrompt:
    """Read a prompt file (your own prompt, in the catalog's format)."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(
            [Problem(f"cannot read the prompt file: {exc}", path=str(source))]
        ) from None
    return parse_prompt(text, str(source))


class _Catalog(Mapping[str, CatalogPrompt]):
    """The catalog: read from ``CATALOG_DIR`` on first use, then kept (thread-safe)."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()
        self._prompts: dict[str, CatalogPrompt] | None = None

    def _load(self) -> dict[str, CatalogPrompt]:
        prompts = self._prompts
        if prompts is not None:
            return prompts
        with self._lock:
            if self._prompts is None:
                loaded: dict[str, CatalogPrompt] = {}
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

    def __getitem__(self, name: str) -> CatalogPrompt:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __repr__(self) -> str:
        return f"CATALOG({', '.join(self.names())})"


CATALOG: _Catalog = _Catalog(CATALOG_DIR)


def get_prompt(prompt: str | CatalogPrompt) -> CatalogPrompt:
    """The catalog prompt named ``prompt`` (a prompt object is returned as is); a KeyError
    listing the catalog, with the closest name, otherwise."""
    if isinstance(prompt, CatalogPrompt):
        return prompt
    try:
        return CATALOG[prompt]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(str(prompt), list(CATALOG), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise KeyError(
            f"no judge prompt named {prompt!r} in the catalog; {hint}the prompts are "
            f"{', '.join(CATALOG)} (evalmark prompts ls)"
        ) from None
