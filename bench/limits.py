"""How far each text kernel is from the machine's limits, measured in one run.

    python bench/limits.py              # 20,000 pairs per kernel, lengths x1, x4, x16
    python bench/limits.py --quick      # 5,000 pairs, lengths x1 and x4
    python bench/limits.py --markdown   # the tables as Markdown (docs/performance.md)

For each batch kernel it prints the input it reads per second (the UTF-8 bytes of both texts of
every pair) beside two ceilings measured on the same input in the same run:

- **read**: summing the input's bytes as 64-bit words with NumPy, the rate at which this machine
  streams the input from memory (no kernel can read its input faster);
- **scan**: counting the input's spaces with one vectorised compare (NumPy, SIMD), the rate of the
  simplest useful pass over the text, such as finding token starts.

``% of scan`` is the kernel's distance to that pass. The length table repeats each pair's texts 1,
4 and 16 times (longer texts, same vocabulary); the threads table runs every kernel with one
worker and with all of them (``workers=-1``) and prints the gain, and the calling thread's share
of the all-workers CPU time (serial work under the GIL, which bounds the gain on any machine, as
the wall-time gain on a shared machine does not). Inputs come from
bench/workload.py, the shared generator. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402

Kernel = Callable[[list[str], list[str], int], Any]

KERNELS: dict[str, Kernel] = {
    "token_f1": lambda e, a, w: em.token_f1_batch(e, a, workers=w),
    "squad_exact_match": lambda e, a, w: em.squad_exact_match_batch(e, a, workers=w),
    "rouge_1": lambda e, a, w: em.rouge_n_batch(e, a, n=1, workers=w),
    "rouge_2": lambda e, a, w: em.rouge_n_batch(e, a, n=2, workers=w),
    "rouge_l": lambda e, a, w: em.rouge_l_batch(e, a, workers=w),
    "rouge_lsum": lambda e, a, w: em.rouge_lsum_batch(e, a, workers=w),
    "bleu": lambda e, a, w: em.bleu_batch(e, a, workers=w),
    "chrf": lambda e, a, w: em.chrf_batch(e, a, workers=w),
    "levenshtein_distance": lambda e, a, w: em.levenshtein_distance_batch(e, a, workers=w),
    "wer": lambda e, a, w: em.wer_batch(e, a, workers=w),
    "cer": lambda e, a, w: em.cer_batch(e, a, workers=w),
    "json_match": lambda e, a, w: em.json_match_batch(e, a, workers=w),
}
ROUNDS = 5


def timed(kernel: Kernel, expected: list[str], actual: list[str], workers: int) -> float:
    """The fastest of a few calls of ``kernel`` on the pairs, in seconds."""
    return best_seconds(lambda: kernel(expected, actual, workers))


def best_seconds(fn: Callable[[], Any], rounds: int = ROUNDS) -> float:
    """The fastest of ``rounds`` calls, in seconds (the least disturbed by other work)."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def caller_share(fn: Callable[[], Any], rounds: int = ROUNDS) -> float:
    """The calling thread's share of the CPU time of the least busy of ``rounds`` calls: its
    work under the GIL (converting inputs, building the result), which no worker count
    shares out and which bounds the gain whatever the machine's load."""
    best, share = float("inf"), 1.0
    for _ in range(rounds):
        gc.collect()
        c0, t0 = time.process_time(), time.thread_time()
        fn()
        cpu = time.process_time() - c0
        if 0 < cpu < best:
            best, share = cpu, (time.thread_time() - t0) / cpu
    return share


def input_bytes(expected: Sequence[str], actual: Sequence[str]) -> np.ndarray:
    """Both texts of every pair as one UTF-8 buffer, padded to whole 64-bit words."""
    joined = "".join(expected).encode() + "".join(actual).encode()
    joined += b"\0" * (-len(joined) % 8)
    return np.frombuffer(joined, dtype=np.uint8)


def ceilings(buffer: np.ndarray) -> tuple[float, float]:
    """Bytes/s of reading ``buffer`` (a sum of its 64-bit words) and of a SIMD space count."""
    words = buffer.view(np.uint64)
    read = buffer.nbytes / best_seconds(lambda: words.sum())
    scan = buffer.nbytes / best_seconds(lambda: np.count_nonzero(buffer == 0x20))
    return read, scan


def pairs(kind: str, n: int, repeat: int) -> tuple[list[str], list[str]]:
    """``n`` pairs of the shared workload, each text repeated ``repeat`` times."""
    expected, actual = workload.json_pairs(n) if kind == "json" else workload.text_pairs(n)
    if repeat == 1 or kind == "json":
        return expected, actual
    return [" ".join([t] * repeat) for t in expected], [" ".join([t] * repeat) for t in actual]


def mb(rate: float) -> str:
    """A rate in bytes/s as MB/s."""
    return f"{rate / 1e6:,.0f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    """Rows under a header, as aligned text or as a Markdown table."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    return "\n".join(fmt.format(*line) for line in (header, *rows))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="pairs per kernel")
    parser.add_argument("--quick", action="store_true", help="5,000 pairs, lengths x1 and x4")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    n = 5_000 if args.quick else args.n
    repeats = (1, 4) if args.quick else (1, 4, 16)
    print(f"# {n:,} pairs per kernel, {os.cpu_count()} cores, rates in MB/s of input read\n")

    rows = []
    for repeat in repeats:
        for name, kernel in KERNELS.items():
            if name == "json_match" and repeat > 1:
                continue  # documents do not lengthen by repetition
            expected, actual = pairs("json" if name == "json_match" else "text", n, repeat)
            buffer = input_bytes(expected, actual)
            read, scan = ceilings(buffer)
            rate = buffer.nbytes / timed(kernel, expected, actual, -1)
            rows.append(
                [
                    name,
                    f"x{repeat}",
                    f"{buffer.nbytes / (2 * n):,.0f}",
                    mb(rate),
                    mb(scan),
                    mb(read),
                    f"{100 * rate / scan:.1f}%",
                ]
            )
    header = ["kernel", "length", "bytes/text", "kernel", "scan", "read", "% of scan"]
    print(table(header, rows, args.markdown))

    print("\n# one worker against all workers (length x1)\n")
    thread_rows = []
    for name, kernel in KERNELS.items():
        expected, actual = pairs("json" if name == "json_match" else "text", n, 1)
        nbytes = input_bytes(expected, actual).nbytes
        one = nbytes / timed(kernel, expected, actual, 1)
        every = nbytes / timed(kernel, expected, actual, -1)
        share = caller_share(lambda: kernel(expected, actual, -1))  # noqa: B023
        row = [name, mb(one), mb(every), f"{every / one:.2f}x", f"{share:.0%}"]
        thread_rows.append(row)
    header = ["kernel", "1 worker", "all workers", "gain", "caller CPU"]
    print(table(header, thread_rows, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
