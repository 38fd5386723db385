"""The JSON Schema of suite files (``evalmark schema suite``), for editors."""

from __future__ import annotations

from typing import Any

from evalmark.strategies._kinds import option_schema
from evalmark.strategies._registry import STRATEGY_KINDS
from evalmark.suite._conversations import CONVERSATION_KEYS, conversation_schema
from evalmark.suite._model import REPORT_FORMATS

__all__ = ["suite_file_schema"]

# The keys of one evaluation that a suite of several gives inside each of its evaluations.
_SINGLE_KEYS = ("samples", "application", "strategies", "traces", *CONVERSATION_KEYS)

# --------------------------------------------------------------------------- JSON Schema


def _fraction_schema(description: str) -> dict[str, Any]:
    return {"type": "number", "minimum": 0, "maximum": 1, "description": description}


# Text the loader reads as given: a name or an id must show something (not only spaces).
_VISIBLE = {"type": "string", "pattern": "\\S"}


def _paths_schema(description: str) -> dict[str, Any]:
    """One item or a list of them; the loader reads one string as a list of one."""
    item = {"type": "string", "minLength": 1}
    return {"description": description, "oneOf": [item, {"type": "array", "items": item}]}


def _requires_one_of(*keys: str) -> dict[str, Any]:
    return {"anyOf": [{"required": [k]} for k in keys]}


def _judge_rules() -> list[dict[str, Any]]:
    """What the loader asks of a judge beyond the types: a recorded judge names its cassette
    and model; only a noisy judge wraps another, and never a noisy one."""

    def kind_is(kind: str) -> dict[str, Any]:
        return {"properties": {"kind": {"const": kind}}, "required": ["kind"]}

    return [
        {"if": kind_is("recorded"), "then": {"required": ["cassette", "model"]}},
        {"if": {"not": kind_is("noisy")}, "then": {"not": {"required": ["judge"]}}},
        {"if": kind_is("noisy"), "then": {"properties": {"judge": {"not": kind_is("noisy")}}}},
    ]


# What the built-in options mean, for editors; their types come from the registry's checkers.
_DESCRIPTIONS = {
    "name": "the check's name in reports",
    "threshold": "the score at which the check passes",
    "dim": "embedding dimensions",
    "seed": "seed of the hashing embedding",
    "numbers": "how JSON numbers compare",
    "min-grade": "the lowest passing grade",
    "repeats": "judge calls per output",
    "reducer": "how the verdicts of repeated judge calls combine",
}


def _option(name: str, check: Any) -> dict[str, Any]:
    schema = option_schema(check)
    if name in _DESCRIPTIONS:
        schema["description"] = _DESCRIPTIONS[name]
    return schema


def _strategy_schema() -> dict[str, Any]:
    variants: list[dict[str, Any]] = [
        {"enum": list(STRATEGY_KINDS), "description": "a check without options"}
    ]
    for kind in STRATEGY_KINDS.values():
        accepted = kind.accepted
        variants.append(
            {
                "type": "object",
                "description": kind.summary,
                "properties": {
                    kind.name: {
                        "type": ["object", "null"],
                        "properties": {n: _option(n, c) for n, c in accepted.items()},
                        "additionalProperties": False,
                    }
                },
                "required": [kind.name],
                "additionalProperties": False,
            }
        )
    return {"oneOf": variants}


def _traces_schema() -> dict[str, Any]:
    path = {"type": "string", "description": "an OTLP trace file (JSON or protobuf)"}
    return {
        "traces": {
            "description": "recorded traces to evaluate, each trace a case",
            "oneOf": [
                path,
                {
                    "type": "object",
                    "properties": {
                        "path": path,
                        "match": {
                            "type": "string",
                            "description": "the span attribute naming each case (default: "
                            "the trace id), matched with the samples' names",
                        },
                        "window": {"type": "integer", "minimum": 1},
                    },
                    "required": ["path"],
                    "additionalProperties": False,
                },
            ],
        }
    }


def _evaluation_rules() -> list[dict[str, Any]]:
    """An evaluation reads samples, conversations or traces (samples and conversations not
    together), and an application unless it reads traces."""
    return [
        _requires_one_of("samples", "conversations", "traces"),
        {"not": {"required": ["samples", "conversations"]}},
        {"dependentRequired": {k: ["conversations"] for k in CONVERSATION_KEYS[1:]}},
        {"if": {"not": {"required": ["traces"]}}, "then": {"required": ["application"]}},
    ]


def _report_formats() -> dict[str, Any]:
    from evalmark.report._formatters import known_formatters

    names = [*REPORT_FORMATS, *(n for n in known_formatters() if n not in REPORT_FORMATS)]
    item = {
        "enum": [n for n in names if n not in ("markdown", "junit")],
        "description": "a built-in format or a report formatter registered when the schema "
        "was written (markdown is md, junit is xml)",
    }
    return {"oneOf": [item, {"type": "array", "items": item}]}


def suite_file_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of suite files, for editors."""
    application = {
        "type": "object",
        "description": "the application under test: recorded builds, a live function, or both",
        "properties": {
            "model-id": {**_VISIBLE, "description": "the model id of recorded builds"},
            "builds": {
                "type": "object",
                "description": "build name -> cassette file; the first is the default",
                "additionalProperties": {"type": "string"},
                "minProperties": 1,
            },
            "function": {
                "type": "string",
                "pattern": ":",
                "description": "package.module:function or file.py:function",
            },
            "system-prompt": {"type": "string"},
        },
        **_requires_one_of("builds", "function"),
        "additionalProperties": False,
    }
    strategies = {"type": "array", "items": {"$ref": "#/$defs/strategy"}, "minItems": 1}
    evaluation = {
        "type": "object",
        "properties": {
            "name": _VISIBLE,
            "samples": _paths_schema("sample files, merged in order"),
            "tags": _paths_schema("tags of every sample"),
            "application": application,
            "strategies": strategies,
            **conversation_schema(),
            **_traces_schema(),
        },
        "required": ["name", "strategies"],
        "allOf": _evaluation_rules(),
        "additionalProperties": False,
    }
    judge: dict[str, Any] = {
        "type": "object",
        "properties": {
            "kind": {"enum": ["rule", "recorded", "noisy"]},
            "min-overlap": _fraction_schema("RuleJudge's share of words needed for yes"),
            "cassette": {"type": "string"},
            "model": {"type": "string", "pattern": ":"},
            "model-id": {"type": "string"},
            "flip-rate": _fraction_schema("probability that a noisy judge flips a verdict"),
            "seed": {"type": "integer"},
            "judge": {"$ref": "#/$defs/judge"},
        },
        "allOf": _judge_rules(),
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "evalmark suite",
        "description": "An evaluation suite run by `evalmark run`. Input paths are relative to "
        "the suite file (sample files not found there: to the project root); the report "
        "folder is relative to where evalmark runs.",
        "type": "object",
        "properties": {
            "name": _VISIBLE,
            "description": _VISIBLE,
            "source": {
                "type": "object",
                "description": "what `evalmark import` read (format, version, sha256, files); "
                "copied into each report's metadata",
            },
            "samples": _paths_schema("sample files, merged in order"),
            "tags": _paths_schema("tags of every sample"),
            "application": application,
            "strategies": strategies,
            "evaluations": {"type": "array", "items": evaluation, "minItems": 1},
            "judge": {"$ref": "#/$defs/judge"},
            "gate": {
                "type": "object",
                "properties": {
                    "pass-rate": _fraction_schema("share of cases that must pass every check"),
                    "tags": {"type": "object", "additionalProperties": _fraction_schema("")},
                    "max-drop": _fraction_schema("largest allowed drop against the baseline"),
                    "baseline": {"type": "string"},
                    "budget": {
                        "type": "object",
                        "properties": {
                            name: {
                                "type": "object",
                                "properties": {
                                    "per-case": {"type": "number", "minimum": 0},
                                    "total": {"type": "number", "minimum": 0},
                                },
                                "minProperties": 1,
                                "additionalProperties": False,
                            }
                            for name in ("latency-ms", "tokens", "cost")
                        },
                        "additionalProperties": False,
                    },
                    "pass-at-k": _fraction_schema("mean chance that some of k runs pass"),
                    "pass-hat-k": _fraction_schema("mean chance that all k runs pass (pass^k)"),
                },
                "additionalProperties": False,
            },
            "report": {
                "type": "object",
                "properties": {
                    "dir": {"type": "string"},
                    "formats": _report_formats(),
                },
                "additionalProperties": False,
            },
            "concurrency": {"type": "integer", "minimum": 1},
            "judge-rates": {
                "description": "a rates file of evalmark judge calibrate: show judged pass "
                "rates corrected for the judge",
                "type": "string",
                "minLength": 1,
            },
            "judge-certificate": {
                "description": "a certificate of evalmark judge calibrate --certificate-out "
                "that the run requires",
                "type": "string",
                "minLength": 1,
            },
            "repeats": {
                "description": "runs of the application per sample, for pass@k and pass^k",
                "oneOf": [
                    {"type": "integer", "minimum": 1},
                    {
                        "type": "object",
                        "properties": {
                            "runs": {"type": "integer", "minimum": 1},
                            "k": {"type": "integer", "minimum": 1},
                        },
                        "required": ["runs"],
                        "additionalProperties": False,
                    },
                ],
            },
            **conversation_schema(),
            **_traces_schema(),
        },
        "oneOf": [  # several evaluations, or the keys of one at the top
            {"required": ["evaluations"], "not": _requires_one_of(*_SINGLE_KEYS)},
            {
                "not": {"required": ["evaluations"]},
                "required": ["strategies"],
                "allOf": _evaluation_rules(),
            },
        ],
        "additionalProperties": False,
        "$defs": {"strategy": _strategy_schema(), "judge": judge},
    }
