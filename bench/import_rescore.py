"""Import an inspect_ai log and a promptfoo results file and re-score them, against
`evalmark score` on the same pairs.

    python bench/import_rescore.py                 # 100,000 samples, the issue's size
    python bench/import_rescore.py --n 20000       # quick look
    python bench/import_rescore.py --eval          # also the .eval zip

It writes N pairs of bench/workload.py (blocks of 100,000, seeds 0, 1, 2...) as: an inspect_ai
`.json` log (one sample per pair: the expected answer its target, the actual one its output,
with the messages, usage and a `match` score as inspect records them), a promptfoo results
file (version 3: one test per pair asserting `equals` the expected answer, the actual one the
provider's output, with promptfoo's verdict) and the JSONL that `evalmark score` reads. Each
job runs in a fresh process and is timed from its call to its end (imports not counted), in
wall time and in CPU time (the process's, all threads):

- peer: `evalmark score` (`score_file`) over the JSONL with the metrics;
- import + rescore: `evalmark.interop.read(FORMAT, file)` (parsing, every check that the
  import is lossless, and for inspect the importer's re-score of every recorded `match`) then
  the same metric kernels on the imported (expected, answer) pairs, read with
  `Imported.columns(build)` (the importers build their samples only when asked for them).

It prints rows/s of each and the ratios to the peer (issue 35's goal: >= 0.5), by wall and by
CPU time. On a loaded machine the CPU ratio is the one to read. Nothing here fails a build.

Where a job's time goes: run one child on files this script wrote (keep them: call
``generate(n, folder, with_eval)`` from Python) with ``--profile 25``, which prints the 25
costliest functions by CPU time on stderr:

    python bench/import_rescore.py --child inspect --source DIR/bench.json --profile 25

The stages, 100,000 samples, CPU seconds (min of 5 on a loaded 2-core machine): the peer,
about 0.05 reading the JSONL and 0.42 in the three metric kernels, which every job below runs
too. The inspect ``.json`` log (133 MB), read by the Rust scan (``bench/inspect_scan.py``):
reading the file 0.09-0.11, the scan 0.14 (a third of it making the targets and answers
Python strings), SHA-256 of the source 0.08 (a thread, beside the scan), names and builds
0.05, the answers by build 0.03, re-scoring ``match`` 0.025 (``bench/inspect_match.py``; 0.13
in Python before the native kernel). The samples are decoded (msgspec, 0.2) only when
``Imported.samples`` is first read, and the tool-call search (0.075) when ``Imported.extra``
is. promptfoo's results (81 MB), read by the Rust scan
(``evalmark.interop._promptfoo_scan``): reading the file 0.045, the scan 0.155 (an eighth of it
making the names, answers and expected outputs Python strings), SHA-256 0.045 (a thread,
beside the scan), the answers by build 0.02. Its rows are decoded (msgspec, typed test cases,
0.25-0.3) only when ``Imported.samples`` is first read. The ``.eval`` zip (55 MB), read by the
Rust scan (``_core.inspect_eval_scan``): about 0.9 CPU on one thread, 0.55 wall on two (the
members inflated and scanned in parallel), of which inflating the 100,000 members
(miniz_oxide) is about 0.6 CPU and the directory 0.01.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workload  # noqa: E402

BLOCK = 100_000
METRICS = "token_f1,rouge_l,levenshtein_similarity"


def pairs(n: int) -> Iterator[tuple[str, str]]:
    """The N generated (expected, actual) pairs (the same for the same N, every run)."""
    for seed, start in enumerate(range(0, n, BLOCK)):
        expected, actual = workload.text_pairs(min(BLOCK, n - start), seed=seed)
        yield from zip(expected, actual, strict=True)


def _sample(index: int, expected: str, actual: str) -> dict[str, Any]:
    from evalmark.strategies._inspect import inspect_match

    question = f"Question {index}?"
    verdict = "C" if inspect_match(actual, expected) else "I"
    return {
        "id": index,
        "epoch": 1,
        "input": question,
        "target": expected,
        "messages": [
            {"role": "user", "content": question, "source": "input"},
            {"role": "assistant", "content": actual, "source": "generate"},
        ],
        "output": {
            "model": "model",
            "choices": [
                {"message": {"role": "assistant", "content": actual}, "stop_reason": "stop"}
            ],
            "completion": actual,
            "usage": {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30},
        },
        "scores": {"match": {"value": verdict, "answer": actual}},
        "metadata": {},
        "store": {},
        "events": [],
        "model_usage": {"mockllm/model": {"input_tokens": 10, "output_tokens": 20}},
        "total_time": 0.01,
        "working_time": 0.01,
        "uuid": f"u{index}",
        "error": None,
        "attachments": {},
    }


def _header(n: int) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": "bench", "model": "mockllm/model", "dataset": {"samples": n}},
        "plan": {"steps": [{"solver": "generate"}]},
        "results": {"scores": [{"name": "match", "scorer": "match", "params": {}}]},
        "stats": {},
    }


def _promptfoo_row(index: int, expected: str, actual: str) -> dict[str, Any]:
    question = f"Question {index}?"
    passed = actual == expected
    return {
        "id": f"echo-{index}",
        "promptIdx": 0,
        "testIdx": index,
        "testCase": {
            "vars": {"question": question},
            "assert": [{"type": "equals", "value": expected}],
        },
        "promptId": "p0",
        "prompt": {"raw": question, "label": "{{question}}"},
        "vars": {"question": question},
        "provider": {"id": "echo", "label": ""},
        "response": {"output": actual, "tokenUsage": {"total": 30, "prompt": 10, "completion": 20}},
        "success": passed,
        "score": 1.0 if passed else 0.0,
        "latencyMs": 10,
        "namedScores": {},
        "gradingResult": {"pass": passed, "score": 1.0 if passed else 0.0, "reason": "equals"},
    }


def _promptfoo(n: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "evalId": "eval-bench",
        "config": {"prompts": ["{{question}}"], "providers": ["echo"]},
        "results": {
            "version": 3,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "prompts": [{"raw": "{{question}}", "label": "{{question}}", "provider": "echo"}],
            "stats": {"successes": sum(r["success"] for r in rows), "failures": 0},
            "results": rows,
        },
    }


def generate(n: int, folder: Path, with_eval: bool) -> dict[str, Path]:
    """Write the inspect log(s), the promptfoo results and the JSONL of the same pairs into
    ``folder``."""
    samples = [_sample(i, e, a) for i, (e, a) in enumerate(pairs(n), start=1)]
    log = folder / "bench.json"
    log.write_text(json.dumps({**_header(n), "samples": samples}), encoding="utf-8")
    rows = [_promptfoo_row(i, e, a) for i, (e, a) in enumerate(pairs(n))]
    promptfoo = folder / "results.json"
    promptfoo.write_text(json.dumps(_promptfoo(n, rows)), encoding="utf-8")
    del rows
    jsonl = folder / "pairs.jsonl"
    with jsonl.open("w", encoding="utf-8") as file:
        for sample in samples:
            row = {"expected": sample["target"], "actual": sample["output"]["completion"]}
            file.write(json.dumps(row) + "\n")
    files = {"json": log, "jsonl": jsonl, "promptfoo": promptfoo}
    if with_eval:
        archive_path = folder / "bench.eval"
        with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("header.json", json.dumps(_header(n)))
            for sample in samples:
                archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
        files["eval"] = archive_path
    return files


def child(kind: str, source: Path, metrics: str, profile: int = 0) -> None:
    """Run one job in this fresh process and print its rows, wall and CPU seconds as JSON
    (``profile``: also the job's ``profile`` costliest functions by CPU time, on stderr)."""
    from evalmark.interop import read
    from evalmark.scoring import ScoreOptions, parse_metrics, score_file

    # the importers' own modules load on a format's first read: imported here, not timed
    importlib.import_module(f"evalmark.interop._{'inspect' if kind == 'inspect' else 'promptfoo'}")

    specs = parse_metrics(metrics)
    profiler = cProfile.Profile(time.process_time) if profile else None
    if profiler is not None:
        profiler.enable()
    started, cpu = time.perf_counter(), time.process_time()
    if kind == "score":
        rows = score_file(source, ScoreOptions(specs)).rows
    else:
        imported = read(kind, source)
        (build,) = imported.outputs
        wanted, actual = imported.columns(build)
        expected = [text or "" for text in wanted]
        for spec in specs:
            spec.compute(expected, actual, None)
        rows = len(actual)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if profiler is not None:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(profile)
    print(json.dumps({"rows": rows, "wall": wall, "cpu": cpu}))


def run_child(kind: str, source: Path, metrics: str) -> tuple[float, float]:
    """Rows/s of one job by wall and by CPU time, run in a fresh process."""
    command = [sys.executable, __file__, "--child", kind, "--source", str(source)]
    done = subprocess.run(
        [*command, "--metrics", metrics], capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} on {source.name} failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    rows = float(figures["rows"])
    return rows / float(figures["wall"]), rows / float(figures["cpu"])


def main() -> None:
    """Generate, time each job, print the figures and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=100_000, help="samples (default 100,000)")
    parser.add_argument("--metrics", default=METRICS, help=f"default: {METRICS}")
    parser.add_argument("--eval", action="store_true", help="also time the .eval zip")
    parser.add_argument(
        "--child", choices=["score", "inspect", "promptfoo"], help=argparse.SUPPRESS
    )
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.source, args.metrics, args.profile)
        return
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(args.n, Path(tmp), args.eval)
        peer_wall, peer_cpu = run_child("score", files["jsonl"], args.metrics)
        print(f"{args.n} samples, metrics {args.metrics}; rows/s by wall | by CPU time")
        print(f"{'evalmark score (JSONL)':<34} {peer_wall:>9,.0f} | {peer_cpu:>9,.0f}")
        jobs = [("inspect", "json"), ("inspect", "eval"), ("promptfoo", "promptfoo")]
        for kind, file in [(k, f) for k, f in jobs if f in files]:
            wall, cpu = run_child(kind, files[file], args.metrics)
            label = f"import {kind}{f' .{file}' if kind == 'inspect' else ''} + rescore"
            print(
                f"{label:<34} {wall:>9,.0f} | {cpu:>9,.0f}   ratio {wall / peer_wall:.2f} | "
                f"{cpu / peer_cpu:.2f} (goal >= 0.5)"
            )


if __name__ == "__main__":
    main()
