"""Import an inspect_ai log and re-score it, against `evalmark score` on the same pairs.

    python bench/import_rescore.py                 # 100,000 samples, the issue's size
    python bench/import_rescore.py --n 20000       # quick look
    python bench/import_rescore.py --eval          # also the .eval zip

It writes N pairs of bench/workload.py (blocks of 100,000, seeds 0, 1, 2...) twice: as an
inspect_ai `.json` log (one sample per pair: the expected answer its target, the actual one its
output, with the messages, usage and a `match` score as inspect records them) and as the JSONL
that `evalmark score` reads. Each job runs in a fresh process and is timed from its call to its
end (imports not counted):

- peer: `evalmark score` (`score_file`) over the JSONL with the metrics;
- import + rescore: `evalmark.interop.read("inspect", log)` (parsing, the sample model, and the
  importer's re-score of every recorded `match`) then the same metric kernels on the imported
  (target, answer) pairs.

It prints rows/s of both and their ratio (issue 35's goal: >= 0.5). Nothing here fails a build;
figures on a shared 2-core machine move by 10-20% between runs.
"""

from __future__ import annotations

import argparse
import json
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


def generate(n: int, folder: Path, with_eval: bool) -> dict[str, Path]:
    """Write the inspect log(s) and the JSONL of the same pairs into ``folder``."""
    samples = [_sample(i, e, a) for i, (e, a) in enumerate(pairs(n), start=1)]
    log = folder / "bench.json"
    log.write_text(json.dumps({**_header(n), "samples": samples}), encoding="utf-8")
    jsonl = folder / "pairs.jsonl"
    with jsonl.open("w", encoding="utf-8") as file:
        for sample in samples:
            row = {"expected": sample["target"], "actual": sample["output"]["completion"]}
            file.write(json.dumps(row) + "\n")
    files = {"json": log, "jsonl": jsonl}
    if with_eval:
        archive_path = folder / "bench.eval"
        with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("header.json", json.dumps(_header(n)))
            for sample in samples:
                archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
        files["eval"] = archive_path
    return files


def child(kind: str, source: Path, metrics: str) -> None:
    """Run one job in this fresh process and print its rows and seconds as JSON."""
    from evalmark.interop import read
    from evalmark.scoring import ScoreOptions, parse_metrics, score_file

    specs = parse_metrics(metrics)
    started = time.perf_counter()
    if kind == "score":
        rows = score_file(source, ScoreOptions(specs)).rows
    else:
        imported = read("inspect", source)
        (answers,) = imported.outputs.values()
        expected = [s.expected_output or "" for s in imported.samples]
        actual = [answers[s.name] for s in imported.samples]
        for spec in specs:
            spec.compute(expected, actual, None)
        rows = len(actual)
    print(json.dumps({"rows": rows, "seconds": time.perf_counter() - started}))


def run_child(kind: str, source: Path, metrics: str) -> float:
    """Rows/s of one job, run in a fresh process."""
    command = [sys.executable, __file__, "--child", kind, "--source", str(source)]
    done = subprocess.run(
        [*command, "--metrics", metrics], capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} on {source.name} failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return float(figures["rows"]) / float(figures["seconds"])


def main() -> None:
    """Generate, time each job, print the figures and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=100_000, help="samples (default 100,000)")
    parser.add_argument("--metrics", default=METRICS, help=f"default: {METRICS}")
    parser.add_argument("--eval", action="store_true", help="also time the .eval zip")
    parser.add_argument("--child", choices=["score", "import"], help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.source, args.metrics)
        return
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(args.n, Path(tmp), args.eval)
        peer = run_child("score", files["jsonl"], args.metrics)
        print(f"{args.n} samples, metrics {args.metrics}")
        print(f"evalmark score (JSONL)            {peer:>12,.0f} rows/s")
        for kind in [k for k in ("json", "eval") if k in files]:
            ours = run_child("import", files[kind], args.metrics)
            label = f"import inspect .{kind} + rescore"
            print(f"{label:<33} {ours:>12,.0f} rows/s   ratio {ours / peer:.2f} (goal >= 0.5)")


if __name__ == "__main__":
    main()
