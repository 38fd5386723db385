"""What ``evalmark.monitor`` costs an application per call, at sample rates 0 and 0.01.

    python bench/monitor.py              # 200,000 calls per timing
    python bench/monitor.py --calls 50000 --rounds 5

Two application functions, each timed bare and wrapped by a monitor at rate 0 and at rate
0.01, alternating within each round (best of ``--rounds``), in one process:

* ``trivial``: returns ``question.upper()`` (about a tenth of a microsecond): the worst case,
  where the wrapper's own work is all there is to see;
* ``small``: SQuAD token F1 of the question against a reference in pure Python (tens of
  microseconds), still far below a model call.

At rate 0.01 the picked calls are scored by two strategies (a plain function and
``ContainsFacts``) on the monitor's background thread, which shares the interpreter with the
caller, so its work is inside the timing. The output gives ns per call, the overhead in ns and
the ratio to the bare function, and the monitor's counters (sampled, scored, dropped).
Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import gc
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from evalmark.samples._samples import Sample  # noqa: E402
from evalmark.strategies import ContainsFacts  # noqa: E402
from evalmark.telemetry import RecordingTracer  # noqa: E402
from evalmark.telemetry._sampling import monitor  # noqa: E402

REFERENCE = "Refunds are possible within 30 days of the invoice date, by card or bank transfer."
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def trivial(question: str) -> str:
    return question.upper()


def small(question: str) -> str:
    """Token F1 against a fixed reference, the SQuAD way, in plain Python."""

    def tokens(text: str) -> list[str]:
        return _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split()

    mine, theirs = tokens(question), tokens(REFERENCE)
    common = sum((Counter(mine) & Counter(theirs)).values())
    return f"{0.0 if common == 0 else 2 * common / (len(mine) + len(theirs)):.3f}"


def has_text(sample: Sample, output: Any) -> bool:
    return bool(output)


def timed(function: Callable[[str], str], questions: list[str]) -> float:
    gc.collect()
    start = time.perf_counter()
    for question in questions:
        function(question)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200_000, help="calls per timing")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (best of)")
    args = parser.parse_args()
    questions = [
        f"Can I get a refund after {i % 90} days on invoice {i}?" for i in range(args.calls)
    ]
    strategies = [has_text, ContainsFacts(("refund",))]

    print(f"monitor overhead per call, {args.calls:,} calls, best of {args.rounds} rounds")
    print(f"{'function':<10}{'variant':<12}{'ns/call':>10}{'overhead':>11}{'ratio':>8}   counters")
    for name, function in [("trivial", trivial), ("small", small)]:
        monitors = {
            "rate 0": monitor(strategies, sample_rate=0.0, tracer=RecordingTracer()),
            "rate 0.01": monitor(
                strategies, sample_rate=0.01, seed=1, tracer=RecordingTracer(), queue_size=10_000
            ),
        }
        variants: dict[str, Callable[[str], str]] = {"bare": function}
        variants.update({label: watch(function) for label, watch in monitors.items()})
        best = dict.fromkeys(variants, float("inf"))
        for _ in range(args.rounds):
            for label, variant in variants.items():
                best[label] = min(best[label], timed(variant, questions))
            monitors["rate 0.01"].flush(timeout=60)
        bare = best["bare"] / args.calls * 1e9
        for label in variants:
            per_call = best[label] / args.calls * 1e9
            counters = ""
            if label in monitors:
                watch = monitors[label]
                watch.close()
                stats = watch.stats()
                counters = (
                    f"sampled {stats.sampled}, scored {stats.scored}, dropped {stats.dropped}"
                )
            print(
                f"{name:<10}{label:<12}{per_call:>10.0f}{per_call - bare:>+11.0f}"
                f"{per_call / bare:>8.2f}   {counters}"
            )
    print("ratio = ns per call with the monitor / ns per call of the bare function")


if __name__ == "__main__":
    main()
