"""``evalmark schema samples|testcases|conversations|suite``: print the JSON Schema of a file
format (the suite file's comes from :func:`evalmark.suite._schema.suite_file_schema`, the one
source of it).

Editors use the schema to check data files as they are written, e.g. with a first line
``# yaml-language-server: $schema=<path to samples.schema.json>`` in a YAML file.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark.cli import EXIT_OK
from evalmark.samples._samples import sample_file_schema
from evalmark.samples._testcase import conversation_file_schema, test_case_file_schema


def suite_file_schema() -> dict[str, Any]:
    """The suite file's schema (imported when asked: it reads the strategy registry)."""
    from evalmark.suite._schema import suite_file_schema as schema

    return schema()


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "samples": sample_file_schema,
    "testcases": test_case_file_schema,
    "conversations": conversation_file_schema,
    "suite": suite_file_schema,
}
WHAT = {
    "conversations": "conversation files (multi-turn cases)",
    "samples": "sample files (inputs, expected outputs, facts, tags)",
    "suite": "suite files (suite.yaml: evaluations, checks, judge, gate)",
    "testcases": "test-case files (inputs with the outputs already produced)",
}


def render(kind: str) -> str:
    """The schema of ``kind`` as indented JSON text ending with a newline."""
    return json.dumps(SCHEMAS[kind](), indent=2, ensure_ascii=False) + "\n"


def register(subparsers: Any) -> None:
    """Add the ``schema`` subcommand."""
    parser = subparsers.add_parser(
        "schema",
        help="print the JSON Schema of samples, testcases, conversations or suite files",
        description="Print the JSON Schema (draft 2020-12) of a file format:\n"
        + "\n".join(f"  {kind:<14} {WHAT[kind]}" for kind in sorted(SCHEMAS)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("kind", choices=sorted(SCHEMAS), help="which file format")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the schema to FILE instead of standard output",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    text = render(args.kind)
    if args.output is None:
        print(text, end="")
    else:
        write_atomically(args.output, text.encode("utf-8"))
    return EXIT_OK
