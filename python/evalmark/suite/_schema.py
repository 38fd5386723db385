"""The JSON Schema of suite files (``evalmark schema suite``), for editors."""

from __future__ import annotations

from typing import Any

from evalmark.strategies._kinds import option_schema
from evalmark.strategies._registry import STRATEGY_KINDS
from evalmark.suite._conversations import conversation_schema
from evalmark.suite._model import REPORT_FORMATS

__all__ = ["suite_file_schema"]

# --------------------------------------------------------------------------- JSON Schema


def _fraction_schema(description: str) -> dict[str, Any]:
    return {"type": "number", "minimum": 0, "maximum": 1, "description": description}


def _paths_schema(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    }


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


def suite_file_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of suite files, for editors."""
    application = {
        "type": "object",
        "description": "the application under test: recorded builds, a live function, or both",
        "properties": {
            "model-id": {"type": "string", "description": "the model id of recorded builds"},
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
        "additionalProperties": False,
    }
    strategies = {"type": "array", "items": {"$ref": "#/$defs/strategy"}, "minItems": 1}
    evaluation = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "samples": _paths_schema("sample files, merged in order"),
            "tags": {"type": "array", "items": {"type": "string"}},
            "application": application,
            "strategies": strategies,
            **conversation_schema(),
            **_traces_schema(),
        },
        "required": ["name", "strategies"],
        "anyOf": [
            {"required": ["samples"]},
            {"required": ["conversations"]},
            {"required": ["traces"]},
        ],
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
            "name": {"type": "string"},
            "description": {"type": "string"},
            "source": {
                "type": "object",
                "description": "what `evalmark import` read (format, version, sha256, files); "
                "copied into each report's metadata",
            },
            "samples": _paths_schema("sample files, merged in order"),
            "tags": {"type": "array", "items": {"type": "string"}},
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
                    "formats": {
                        "type": "array",
                        "items": {
                            "type": "string",
                            "description": "a built-in format ("
                            + ", ".join(REPORT_FORMATS)
                            + ") or the name of a registered report formatter",
                            "examples": list(REPORT_FORMATS),
                            # the loader's "did you mean": markdown is md, junit is xml
                            "not": {"enum": ["markdown", "junit", "htm"]},
                        },
                    },
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
        "additionalProperties": False,
        "$defs": {"strategy": _strategy_schema(), "judge": judge},
    }
