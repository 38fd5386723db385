"""Throughput of the scorer on precomputed outputs against calling the batch kernels directly.

    python bench/scorer.py              # 100,000 outputs
    python bench/scorer.py --n 20000 --repeat 5

Two scorer runs over the same inputs as the direct kernel calls, in one process:

* text: 100,000 (expected, actual) answers from bench/workload.py scored with TokenF1 + RougeL +
  LevenshteinSimilarity through ``Scorer().evaluate_outputs(samples, outputs, ...)``;
* json: 100,000 JSON document pairs scored with JsonMatch.

"direct" is the time of the batch kernels alone on the same lists (token_f1_batch, rouge_l_batch,
levenshtein_similarity_batch, json_match_batch). The ratio is direct time / scorer time: the
share of the scorer's time spent in the kernels (goal >= 0.5). Building the Sample objects is
setup, outside both timings. Each figure is the best of ``--repeat`` runs. Then the report is
summarized (score, per-strategy table), its failing rows explained and its JSON written, each
timed separately. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402
from evalmark import Sample, Scorer  # noqa: E402
from evalmark.strategies import JsonMatch, LevenshteinSimilarity, RougeL, TokenF1  # noqa: E402


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs (seconds) and the last result."""
    best = float("inf")
    result: Any = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def samples_for(expected: list[str], prefix: str) -> list[Sample]:
    """One sample per expected answer (setup, not timed)."""
    return [
        Sample(name=f"{prefix}-{i}", parameters=[i], expected_output=text)
        for i, text in enumerate(expected)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="outputs per run (100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (3)")
    args = parser.parse_args()
    n, repeat = args.n, args.repeat

    expected, actual = workload.text_pairs(n, seed=0)
    json_expected, json_actual = workload.json_pairs(n, seed=0)
    text_samples = samples_for(expected, "text")
    json_samples = samples_for(json_expected, "json")
    scorer = Scorer()
    text_strategies = (TokenF1(0.5), RougeL(0.5), LevenshteinSimilarity(0.8))

    def direct_text() -> None:
        em.token_f1_batch(expected, actual)
        em.rouge_l_batch(expected, actual)
        em.levenshtein_similarity_batch(expected, actual)

    def direct_json() -> None:
        em.json_match_batch(json_expected, json_actual)

    def scored_text() -> Any:
        return scorer.evaluate_outputs(text_samples, actual, *text_strategies, name="text")

    def scored_json() -> Any:
        return scorer.evaluate_outputs(json_samples, json_actual, JsonMatch(), name="json")

    direct_text()  # warm the thread pool
    t_direct_text, _ = best_of(repeat, direct_text)
    t_scored_text, text_report = best_of(repeat, scored_text)
    t_direct_json, _ = best_of(repeat, direct_json)
    t_scored_json, json_report = best_of(repeat, scored_json)

    print(f"scorer on {n:,} precomputed outputs (best of {repeat})")
    print(f"{'run':<34}{'direct s':>10}{'scorer s':>10}{'outputs/s':>14}{'ratio':>8}")
    rows = [
        ("text: TokenF1 + RougeL + Levenshtein sim.", t_direct_text, t_scored_text),
        ("json: JsonMatch", t_direct_json, t_scored_json),
        ("all four", t_direct_text + t_direct_json, t_scored_text + t_scored_json),
    ]
    for label, direct, scored in rows:
        rate = n / scored
        print(f"{label:<34}{direct:>10.3f}{scored:>10.3f}{rate:>14,.0f}{direct / scored:>8.2f}")
    print("ratio = direct kernel time / scorer time (goal >= 0.50)")

    t_summary, summary = best_of(repeat, lambda: (text_report.summary, text_report.by_strategy()))
    t_failing, failing = best_of(1, text_report.failing_rows)
    t_json, json_text = best_of(1, text_report.to_json)
    print()
    print(
        f"text report: checks passed {summary[0].check_pass_rate:.1%}, "
        f"{summary[0].evaluations:,} evaluations"
    )
    for name, s in summary[1].items():
        print(f"  {name:<22} pass {100 * s.check_pass_rate:5.1f}%  mean {s.mean:.4f}")
    print(f"json report: pass rate {json_report.pass_rate:.1%}")
    print(f"summary + per-strategy table: {t_summary * 1000:.1f} ms")
    print(f"failing rows with explanations ({len(failing):,} samples): {t_failing:.2f} s")
    print(f"text report to_json ({len(json_text) / 1e6:.0f} MB): {t_json:.2f} s")


if __name__ == "__main__":
    main()
