"""The code-run file (``code.yaml``): which tasks and solutions, the sandbox, limits, k and the
gate, for ``evalmark code run``.

::

    tasks: tasks.yaml            # required; relative to this file
    solutions: solutions.jsonl   # required
    sandbox: bwrap               # bwrap (default) or local
    k: [1, 5]                    # pass@k to report (default [1])
    concurrency: 2               # runs in flight (default 2)
    extract: markdown            # markdown (default) or none
    select: first                # first (default), last or all fenced blocks
    limits: {timeout: 10, cpu-seconds: 10, memory-mb: 512, processes: 8,
             file-size-mb: 64, disk-mb: 128, files: 10000,
             open-files: 256}
    gate: {pass@1: 0.5}          # fail (exit 1) when a pass@k is below its threshold
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import yaml

from evalmark._files.source import read_bytes
from evalmark._files.yaml_read import checked_nodes
from evalmark.code._extract import Select
from evalmark.code._sandbox import SANDBOXES, Limits
from evalmark.errors import DataFileError, Problem

__all__ = ["CONFIG_NAME", "CodeConfig", "GateCheck", "check_gate", "load_code_config"]

CONFIG_NAME = "code.yaml"
_MIB = 1024 * 1024
_KEYS = ("tasks", "solutions", "sandbox", "k", "concurrency", "extract", "select", "limits", "gate")
_LIMIT_KEYS = {
    "timeout": ("timeout", 1),
    "cpu-seconds": ("cpu_seconds", 1),
    "memory-mb": ("memory_bytes", _MIB),
    "processes": ("processes", 1),
    "file-size-mb": ("file_size_bytes", _MIB),
    "disk-mb": ("disk_bytes", _MIB),
    "files": ("files", 1),
    "open-files": ("open_files", 1),
}


@dataclass(frozen=True, slots=True)
class CodeConfig:
    """A loaded code-run file; paths are resolved against the file's folder."""

    path: Path
    tasks: Path
    solutions: Path
    sandbox: str = "bwrap"
    k: tuple[int, ...] = (1,)
    concurrency: int = 2
    extract: Literal["markdown", "none"] = "markdown"
    select: Select = "first"
    limits: Limits = field(default_factory=Limits)
    gate: Mapping[int, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One threshold of the gate and whether the run met it."""

    k: int
    required: float
    actual: float

    @property
    def passed(self) -> bool:
        """True when pass@k reached the threshold."""
        return self.actual >= self.required - 1e-12


def check_gate(gate: Mapping[int, float], pass_at_k: Mapping[int, float]) -> list[GateCheck]:
    """Each threshold of ``gate`` against the run's pass@k, in k order."""
    return [GateCheck(k, gate[k], pass_at_k[k]) for k in sorted(gate)]


class _Reader:
    def __init__(self, path: Path, root: yaml.MappingNode) -> None:
        self.path = path
        self.root = root
        self.problems: list[Problem] = []

    def problem(self, node: yaml.Node, message: str) -> None:
        mark = node.start_mark
        self.problems.append(
            Problem(message, path=str(self.path), line=mark.line + 1, column=mark.column + 1)
        )


def load_code_config(path: str | os.PathLike[str]) -> CodeConfig:
    """Read a code-run file, or the ``code.yaml`` in a folder. Problems name file and line."""
    target = Path(path)
    if target.is_dir():
        target = target / CONFIG_NAME
    data = read_bytes(target, DataFileError)
    try:
        with checked_nodes(data, str(target), DataFileError) as (loader, node):
            if not isinstance(node, yaml.MappingNode):
                raise DataFileError(
                    [
                        Problem(
                            "a code-run file is a mapping with tasks: and solutions:",
                            path=str(target),
                        )
                    ]
                )
            reader = _Reader(target, node)
            values: dict[str, tuple[yaml.Node, Any]] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                if key not in _KEYS:
                    reader.problem(
                        key_node, f"unknown key '{key}'; the keys are {', '.join(_KEYS)}"
                    )
                    continue
                values[key] = (value_node, loader.construct_object(value_node, deep=True))
    except yaml.YAMLError as exc:
        raise DataFileError([Problem(f"unreadable YAML: {exc}", path=str(target))]) from None
    config = _build(reader, values)
    if reader.problems:
        raise DataFileError(reader.problems[:20], more=max(len(reader.problems) - 20, 0))
    assert config is not None
    return config


def _build(reader: _Reader, values: dict[str, tuple[yaml.Node, Any]]) -> CodeConfig | None:
    folder = reader.path.parent
    paths: dict[str, Path] = {}
    for key in ("tasks", "solutions"):
        if key not in values:
            reader.problem(reader.root, f"the '{key}' key is missing: name the {key} file")
            continue
        node, value = values[key]
        if not isinstance(value, str) or not value:
            reader.problem(node, f"{key} must be a file name")
            continue
        paths[key] = folder / value
    options: dict[str, Any] = {}
    if "sandbox" in values:
        node, value = values["sandbox"]
        if not isinstance(value, str) or value not in SANDBOXES:
            reader.problem(node, f"sandbox must be one of {', '.join(sorted(SANDBOXES))}")
        options["sandbox"] = value
    for key, allowed in (("extract", ("markdown", "none")), ("select", ("first", "last", "all"))):
        if key in values:
            node, value = values[key]
            if value not in allowed:
                reader.problem(node, f"{key} must be one of {', '.join(allowed)}, got {value!r}")
            options[key] = value
    if "k" in values:
        node, value = values["k"]
        items = value if isinstance(value, list) else [value]
        if not items or not all(_positive_int(v) for v in items):
            reader.problem(node, "k must be a whole number >= 1 or a list of them, e.g. [1, 5]")
        else:
            options["k"] = tuple(sorted(set(items)))
    if "concurrency" in values:
        node, value = values["concurrency"]
        if not _positive_int(value):
            reader.problem(node, "concurrency must be a whole number >= 1")
        options["concurrency"] = value
    if "limits" in values:
        options["limits"] = _limits(reader, *values["limits"])
    if "gate" in values:
        options["gate"] = _gate(reader, *values["gate"])
    if reader.problems or len(paths) < 2:
        return None
    # every k the gate names is reported
    options["k"] = tuple(sorted(set(options.get("k", (1,))) | set(options.get("gate", {}))))
    return CodeConfig(reader.path, paths["tasks"], paths["solutions"], **options)


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _limits(reader: _Reader, node: yaml.Node, value: Any) -> Limits:
    if not isinstance(value, dict) or not isinstance(node, yaml.MappingNode):
        reader.problem(node, "limits must be a mapping, e.g. {timeout: 10, memory-mb: 512}")
        return Limits()
    fields: dict[str, Any] = {}
    for key_node, item_node in node.value:
        key = str(key_node.value)
        item: Any = value.get(key)
        if key not in _LIMIT_KEYS:
            reader.problem(
                key_node, f"unknown limit '{key}'; the limits are {', '.join(_LIMIT_KEYS)}"
            )
            continue
        name, scale = _LIMIT_KEYS[key]
        if key == "timeout":
            ok = isinstance(item, int | float) and not isinstance(item, bool) and item > 0
            if not ok:
                reader.problem(item_node, "timeout must be a number of seconds > 0")
                continue
            fields[name] = float(item)
        elif not _positive_int(item):
            reader.problem(item_node, f"{key} must be a whole number >= 1")
        else:
            fields[name] = int(item) * scale
    return Limits(**fields)


def _gate(reader: _Reader, node: yaml.Node, value: Any) -> Mapping[int, float]:
    if not isinstance(value, dict) or not isinstance(node, yaml.MappingNode):
        reader.problem(node, "gate must be a mapping such as {pass@1: 0.5}")
        return {}
    gate: dict[int, float] = {}
    for key_node, item_node in node.value:
        key = str(key_node.value)
        item: Any = value.get(key)
        k_text = key.removeprefix("pass@")
        if not key.startswith("pass@") or not k_text.isdigit() or int(k_text) < 1:
            reader.problem(key_node, f"gate keys are pass@K (K >= 1), got '{key}'")
            continue
        ok = isinstance(item, int | float) and not isinstance(item, bool) and 0 <= item <= 1
        if not ok:
            reader.problem(item_node, f"{key} needs a threshold between 0 and 1")
            continue
        gate[int(k_text)] = float(item)
    return MappingProxyType(gate)
