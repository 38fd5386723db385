"""Benchmark of the trace reader: OTLP JSON spans per second, against ``json.loads`` of the
same file, and the peak memory of reading a large file.

    .venv/bin/python bench/traces_read.py [--traces 20000] [--rounds 3]
    .venv/bin/python bench/traces_read.py --rss --traces 1000000      # a ~2 GB file

Writes an OTLP JSON lines file of ``--traces`` agent runs (an HTTP server span, an agent span, two
model calls with their messages, a tool call and a database span: 6 spans a trace, 512 spans a
line as a batching exporter writes them; texts from ``workload.text_pairs``), then times:
``json.loads`` of every line (the reference point: parsing alone, building nothing), the
reader's spans grouped into traces (decoding into typed values, ids and attributes), the whole
``evalmark.traces.read`` (each trace assembled into a TestCase), and the same on the Python path
alone (msgspec decoding and the Python assembler, which read what the Rust fast path hands
back: the reader as it was before that path, measured in the same run). Two more reference
points: ``msgspec.json.decode`` of every line (untyped) and the reader's own typed msgspec
decode alone (OTLP structs, nothing converted): the floor any reader in Python starts from.
Prints spans/s (per CPU second, the process pinned to one core; the works take turns in each
round, the best round of each kept) and each rate's ratio to ``json.loads``. Goal: 200,000
spans/s on one core for the reader, at least 1.2x ``json.loads``.

With ``--rss``, ``evalmark traces check`` reads the file in a fresh process and the peak
resident memory of that process is printed, with the file's size: it stays flat as the file
grows (traces are handed on once idle; see ``evalmark.traces._stream``). Then ``evalmark traces
annotate`` evaluates it with a suite (two checks and a gate) in another fresh process: the
test cases and the report's rows are spooled to temporary files, so its peak memory grows by a
few hundred bytes a trace (names and verdict figures), not with the file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import msgspec

from evalmark.traces import read
from evalmark.traces._assemble import assemble
from evalmark.traces._otlp_json import _DECODER
from evalmark.traces._read import _batches, trace_file_sha256
from evalmark.traces._stream import group_traces
from workload import text_pairs

SPANS_PER_LINE = 512


def _kv(key: str, value: object) -> dict[str, object]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _span(
    trace: str, span: str, parent: str, name: str, start: int, attrs: dict[str, object]
) -> dict[str, object]:
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 5_000_000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
        "status": {},
    }


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def trace_spans(number: int, question: str, answer: str) -> list[dict[str, object]]:
    """The six spans of one agent run, children before parents (the order they end in)."""
    trace = f"{number + 1:032x}"
    ids = [f"{number + 1:08x}{k:08x}" for k in range(1, 7)]
    t0 = 1_700_000_000_000_000_000 + number * 1_000_000_000
    server, agent, first, tool, second, database = ids
    call = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"id": number}}
                ],
            }
        ]
    )
    return [
        _span(
            trace,
            first,
            agent,
            "chat gpt-4o",
            t0 + 1,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 18,
                "gen_ai.input.messages": _messages("user", question),
                "gen_ai.output.messages": call,
            },
        ),
        _span(
            trace,
            database,
            tool,
            "SELECT orders",
            t0 + 3,
            {"db.system": "postgresql", "db.query.text": "SELECT * FROM orders WHERE id = $1"},
        ),
        _span(
            trace,
            tool,
            agent,
            "execute_tool lookup",
            t0 + 2,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": json.dumps({"id": number}),
                "gen_ai.tool.call.result": json.dumps({"status": "shipped"}),
            },
        ),
        _span(
            trace,
            second,
            agent,
            "chat gpt-4o",
            t0 + 4,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 160,
                "gen_ai.usage.output_tokens": 40,
                "gen_ai.output.messages": _messages("assistant", answer),
            },
        ),
        _span(
            trace,
            agent,
            server,
            "invoke_agent support",
            t0,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "support",
                "session.id": f"s-{number}",
            },
        ),
        _span(
            trace,
            server,
            "",
            "POST /chat",
            t0,
            {
                "http.request.method": "POST",
                "http.route": "/chat",
                "http.response.status_code": 200,
            },
        ),
    ]


def write_file(path: Path, traces: int) -> int:
    """Write ``traces`` agent runs as OTLP JSON lines; the number of spans written."""
    questions, answers = text_pairs(min(traces, 5_000), seed=3)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        batch: list[dict[str, object]] = []
        for number in range(traces):
            k = number % len(questions)
            batch += trace_spans(number, questions[k], answers[k])
            if len(batch) >= SPANS_PER_LINE or number == traces - 1:
                resource = {"attributes": [_kv("service.name", "support-agent")]}
                request = {
                    "resourceSpans": [
                        {
                            "resource": resource,
                            "scopeSpans": [{"scope": {"name": "agent"}, "spans": batch}],
                        }
                    ]
                }
                out.write(json.dumps(request) + "\n")
                count += len(batch)
                batch = []
    return count


def best_of(rounds: int, works: dict[str, Callable[[], object]]) -> dict[str, float]:
    """The shortest of ``rounds`` timings of each work, in CPU seconds of this process (the
    reader runs on one core; CPU time is what a busy machine disturbs least). The works take
    turns within each round, so the reference and the readers see the same load on a shared
    machine, and their ratios hold even when the load changes between rounds."""
    times: dict[str, float] = {}
    for _ in range(rounds):
        for label, work in works.items():
            start = time.process_time()
            work()
            spent = time.process_time() - start
            times[label] = min(times.get(label, spent), spent)
    return times


def _json_loads(path: Path) -> None:
    with path.open("rb") as stream:
        for line in stream:
            json.loads(line)


def _msgspec_decode(path: Path) -> None:
    decode = msgspec.json.decode
    with path.open("rb") as stream:
        for line in stream:
            decode(line)


def _typed_decode(path: Path) -> None:
    decode = _DECODER.decode
    with path.open("rb") as stream:
        for line in stream:
            decode(line)


def _grouped(path: Path) -> None:
    for _ in group_traces(_batches(path, fast=True)):
        pass


def _read(path: Path) -> None:
    for _ in read(path, problems=[]):
        pass


def _python_read(path: Path) -> None:
    """What ``read`` does on the Python path alone (msgspec decoding, the Python assembler):
    the reader before its Rust fast path, measured in the same run."""
    source = trace_file_sha256(path)
    for spans in group_traces(_batches(path)):
        assemble(spans, None, source)


_PEAK = (
    "import resource, sys; from evalmark.cli import main; main(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)"
)
_SUITE = (
    "name: traces\n"
    "traces: {path: traces.jsonl, match: session.id}\n"
    "strategies: [exact-match, contains-facts]\n"
    "gate: {pass-rate: 0.0}\n"
)


def peak_rss(*command: str) -> int:
    """Peak resident memory (bytes) of a fresh process running ``evalmark COMMAND...``."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *command],
        check=False,
        timeout=7200,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.split()[-1])


def one_core() -> str:
    """Pin this process to the first core it may run on (the goal is per core); what was done."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return f"pinned to core {core}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3, help="timed passes; the best is kept")
    parser.add_argument("--rss", action="store_true", help="measure peak memory instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "traces.jsonl"
        spans = write_file(path, args.traces)
        size = path.stat().st_size
        print(f"{spans:,} spans in {args.traces:,} traces, {size / 1e6:,.1f} MB of OTLP JSON")
        if args.rss:
            rss = peak_rss("traces", "check", str(path))
            print(f"peak RSS of `evalmark traces check`: {rss / 1e6:,.0f} MB")
            (path.parent / "suite.yaml").write_text(_SUITE, encoding="utf-8")
            verdicts = str(path.parent / "verdicts.jsonl")
            rss = peak_rss("traces", "annotate", str(path.parent), "-o", verdicts)
            print(f"peak RSS of `evalmark traces annotate` (2 checks, a gate): {rss / 1e6:,.0f} MB")
            return
        print(f"timing on one core: {one_core()}; CPU seconds, best of {args.rounds}")
        reference = "json.loads (reference)"
        times = best_of(
            args.rounds,
            {
                reference: lambda: _json_loads(path),
                "msgspec.json.decode, untyped": lambda: _msgspec_decode(path),
                "msgspec typed decode (the floor)": lambda: _typed_decode(path),
                "reader: spans grouped into traces": lambda: _grouped(path),
                "read(), the Python path alone": lambda: _python_read(path),
                "read(): traces as TestCases": lambda: _read(path),
            },
        )
        print(f"{reference:<34}{spans / times[reference]:>12,.0f} spans/s")
        for label, seconds in times.items():
            if label != reference:
                ratio = times[reference] / seconds
                print(f"{label:<34}{spans / seconds:>12,.0f} spans/s  {ratio:5.2f}x json.loads")


if __name__ == "__main__":
    main()
