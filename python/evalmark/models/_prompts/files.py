"""Reading prompt files: Markdown with a YAML front matter (the format is described in
:mod:`evalmark.models._prompts.catalog`). Every problem names the file, the line and the field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from evalmark.errors import Problem, PromptFileError
from evalmark.models._prompts.answers import PARSE_MODES
from evalmark.models._prompts.fence import block_name
from evalmark.models._prompts.model import (
    HEADER,
    HEADERS,
    PLACEHOLDER,
    JudgePrompt,
    PromptVariable,
)
from evalmark.models._prompts.values import VARIABLE_TYPES

__all__ = ["load_prompt", "parse_prompt"]

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_KEYS = (
    "name",
    "group",
    "title",
    "summary",
    "system",
    "variables",
    "score",
    "schema",
    "rule",
    "reply",
    "header",
)
_HEADERS = {header.split(":", 1)[0]: header for header in HEADERS}


def parse_prompt(text: str, source: str = "<prompt>") -> JudgePrompt:
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
    used = list(dict.fromkeys(PLACEHOLDER.findall(body)))
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
    reply = meta.get("reply", "structured")
    if reply not in PARSE_MODES:
        problem(f"expected one of {', '.join(PARSE_MODES)}", key_lines.get("reply"), "reply")
        reply = "structured"
    header = meta.get("header", HEADER.split(":", 1)[0])
    if header not in _HEADERS:
        problem(f"expected one of {', '.join(_HEADERS)}", key_lines.get("header"), "header")
        header = HEADER.split(":", 1)[0]
    if problems:
        raise PromptFileError(problems)
    return JudgePrompt(
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
        reply=reply,
        header=_HEADERS[header],
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
            problem("expected a description, or {description, type, optional, label}", line, where)
            continue
        unknown = set(spec) - {"description", "type", "optional", "label"}
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
        label = spec.get("label", "")
        if not isinstance(label, str) or (label and block_name(label) != label):
            problem("a label is a block name: capitals, digits and underscores", line, where)
            label = ""
        out.append(PromptVariable(name, spec["description"].strip(), kind, optional, label))
    return tuple(out)


def load_prompt(path: str | Path) -> JudgePrompt:
    """Read a prompt file (your own prompt, in the catalog's format)."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(
            [Problem(f"cannot read the prompt file: {exc}", path=str(source))]
        ) from None
    return parse_prompt(text, str(source))
