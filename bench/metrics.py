"""Throughput of evalmark's metric kernels against peer libraries, measured in one run.

    python bench/metrics.py                 # 100,000 pairs per metric, plus the memory check
    python bench/metrics.py --quick         # 10,000 pairs, smaller memory check
    python bench/metrics.py --n 50000 --no-memory

For each metric it prints evalmark's pairs/s (all cores, and one thread), the peer's pairs/s on
the same inputs in the same process, their ratio and the ratio the project aims for. Inputs come
from bench/workload.py (the shared generator). Slow peers are timed on a subset and scaled,
which the output says. A missing peer prints "peer not installed"; nothing here fails a build.

The memory check runs each 1,000,000-pair batch call in a fresh subprocess and reads the RSS
high-water mark (VmHWM in /proc/self/status), reset just before the call through
/proc/self/clear_refs, so the figure is the call's own peak above the process's resident size.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402


@dataclass
class Row:
    metric: str
    ours: float  # pairs/s, all cores
    ours_serial: float  # pairs/s, workers=1
    peer: str
    theirs: float | None  # pairs/s, None when the peer is missing
    target: float
    note: str = ""


ROUNDS = 3


def once(fn: Callable[[], Any]) -> float:
    """Seconds for one call."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(
    metric: str,
    n: int,
    ours: Callable[[], Any],
    ours_serial: Callable[[], Any],
    peer: str,
    make_peer: Callable[[], Callable[[], Any]],
    target: float,
    peer_n: int | None = None,
) -> Row:
    """Best-of-ROUNDS pairs/s of evalmark (all cores, one thread) and of the peer.

    The three are timed in turn within each round, so that a change of machine load during the
    run weighs on both sides alike. ``peer_n`` < ``n``: the peer runs on the first ``peer_n``
    pairs only (its pairs/s is what is compared).
    """
    try:
        theirs: Callable[[], Any] | None = make_peer()
    except ImportError:
        theirs = None
    best = [float("inf")] * 3
    for _ in range(ROUNDS):
        best[0] = min(best[0], once(ours))
        best[1] = min(best[1], once(ours_serial))
        if theirs is not None:
            best[2] = min(best[2], once(theirs))
    k = n if peer_n is None else min(peer_n, n)
    note = f"peer timed on the first {k:,} pairs, pairs/s scaled" if k < n else ""
    return Row(
        metric,
        n / best[0],
        n / best[1],
        peer,
        None if theirs is None else k / best[2],
        target,
        note,
    )


def bench_levenshtein(exp: list[str], act: list[str]) -> Row:
    def make() -> Callable[[], Any]:
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        return lambda: process.cpdist(
            exp, act, scorer=Levenshtein.normalized_similarity, workers=-1
        )

    return measure(
        "Levenshtein similarity",
        len(exp),
        lambda: em.levenshtein_similarity_batch(exp, act),
        lambda: em.levenshtein_similarity_batch(exp, act, workers=1),
        "rapidfuzz cpdist(workers=-1)",
        make,
        1.5,
    )


def bench_rouge(exp: list[str], act: list[str], subset: int) -> Row:
    def make() -> Callable[[], Any]:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"])
        pairs = list(zip(exp[:subset], act[:subset], strict=True))
        return lambda: [scorer.score(e, a)["rougeL"].fmeasure for e, a in pairs]

    return measure(
        "ROUGE-L F",
        len(exp),
        lambda: em.rouge_l_batch(exp, act),
        lambda: em.rouge_l_batch(exp, act, workers=1),
        "rouge-score",
        make,
        200.0,
        subset,
    )


def bench_token_f1(exp: list[str], act: list[str], subset: int) -> Row:
    import oracles

    def make() -> Callable[[], Any]:
        pairs = list(zip(exp[:subset], act[:subset], strict=True))
        return lambda: [oracles.squad_compute_f1(e, a) for e, a in pairs]

    return measure(
        "token F1 (SQuAD)",
        len(exp),
        lambda: em.token_f1_batch(exp, act),
        lambda: em.token_f1_batch(exp, act, workers=1),
        "pure-Python SQuAD compute_f1",
        make,
        60.0,
        subset,
    )


def memory_bandwidth(megabytes: int = 256) -> tuple[float, int]:
    """This machine's memory-read bandwidth (bytes/s): the best of 5 numpy sums over a
    ``megabytes`` float64 array, on one thread and on one thread per core over equal slices
    (numpy releases the GIL in a reduction); the faster of the two, and its thread count."""
    from concurrent.futures import ThreadPoolExecutor

    data = np.ones(megabytes * 2**20 // 8)  # written once, so every page is resident
    threads = os.cpu_count() or 1
    slices = np.array_split(data, threads)
    best = [float("inf"), float("inf")]
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(5):
            best[0] = min(best[0], once(lambda: float(data.sum())))
            best[1] = min(best[1], once(lambda: sum(pool.map(np.sum, slices))))
    one, many = data.nbytes / best[0], data.nbytes / best[1]
    return (one, 1) if one >= many else (many, threads)


def bench_cosine(n: int, seed: int) -> Row:
    a, b = workload.vectors(n, 384, seed=seed)

    def make() -> Callable[[], Any]:
        return lambda: (
            np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        )

    row = measure(
        "cosine, 384-d float32",
        n,
        lambda: em.cosine_batch(a, b),
        lambda: em.cosine_batch(a, b, workers=1),
        "numpy einsum / norms",
        make,
        3.0,
    )
    # Cosine only streams its two inputs: its speed limit is memory bandwidth.
    bandwidth, threads = memory_bandwidth()
    read = row.ours * 2 * a.shape[1] * a.itemsize
    row.note = (
        f"reads {read / 1e9:.1f} GB/s = {read / bandwidth:.0%} of this machine's memory-read "
        f"bandwidth, {bandwidth / 1e9:.1f} GB/s measured now (numpy sum over 256 MB, "
        f"{threads} thread{'s' if threads > 1 else ''}; target >= 80%)"
    )
    return row


def bench_cosine_matrix(n: int, seed: int) -> Row:
    a, b = workload.vectors(max(1, n // 10), 384, seed=seed)
    q = a[: max(1, n // 100)]

    def make() -> Callable[[], Any]:
        def run() -> Any:
            # float64, as evalmark accumulates: a float32 product would round every sum
            x, y = q.astype(np.float64), b.astype(np.float64)
            return (x @ y.T) / np.outer(np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1))

        return run

    return measure(
        f"cosine_matrix {len(q):,}x{len(b):,}",
        len(q) * len(b),
        lambda: em.cosine_matrix(q, b),
        lambda: em.cosine_matrix(q, b, workers=1),
        "numpy float64 matmul / norms",
        make,
        0.5,
    )


def long_rows(texts: list[str], k: int) -> list[str]:
    """Consecutive groups of ``k`` texts joined into one long row each."""
    return [" ".join(texts[i : i + k]) for i in range(0, len(texts) - k + 1, k)]


def bench_long_levenshtein(exp: list[str], act: list[str]) -> Row:
    le, la = long_rows(exp, 25), long_rows(act, 25)

    def make() -> Callable[[], Any]:
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        return lambda: process.cpdist(le, la, scorer=Levenshtein.normalized_similarity, workers=-1)

    chars = sum(map(len, le)) // max(1, len(le))
    return measure(
        f"Levenshtein, ~{chars:,} chars",
        len(le),
        lambda: em.levenshtein_similarity_batch(le, la),
        lambda: em.levenshtein_similarity_batch(le, la, workers=1),
        "rapidfuzz cpdist(workers=-1)",
        make,
        1.0,
    )


def bench_long_rouge(exp: list[str], act: list[str], subset: int) -> Row:
    le, la = long_rows(exp, 25), long_rows(act, 25)

    def make() -> Callable[[], Any]:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"])
        pairs = list(zip(le[:subset], la[:subset], strict=True))
        return lambda: [scorer.score(e, a)["rougeL"].fmeasure for e, a in pairs]

    chars = sum(map(len, le)) // max(1, len(le))
    return measure(
        f"ROUGE-L F, ~{chars:,} chars",
        len(le),
        lambda: em.rouge_l_batch(le, la),
        lambda: em.rouge_l_batch(le, la, workers=1),
        "rouge-score",
        make,
        100.0,
        subset,
    )


def bench_json(exp: list[str], act: list[str]) -> Row:
    def make() -> Callable[[], Any]:
        import orjson

        loads = orjson.loads
        pairs = list(zip(exp, act, strict=True))
        return lambda: [loads(e) == loads(a) for e, a in pairs]

    return measure(
        "JSON match",
        len(exp),
        lambda: em.json_match_batch(exp, act),
        lambda: em.json_match_batch(exp, act, workers=1),
        "orjson.loads(e) == orjson.loads(a)",
        make,
        3.0,
    )


def as_lines(texts: list[str]) -> list[str]:
    """The same texts with clause breaks as newlines: ROUGE-Lsum's sentences."""
    return [t.replace(", ", "\n").replace("; ", "\n") for t in texts]


def bench_rouge_stemmed(exp: list[str], act: list[str], subset: int, kind: str) -> Row:
    """ROUGE-1, ROUGE-2 or ROUGE-Lsum with Porter stemming against rouge-score's
    ``use_stemmer=True``."""
    if kind == "rougeLsum":
        exp, act = as_lines(exp), as_lines(act)

        def ours(w: int | None) -> Any:
            return em.rouge_lsum_batch(exp, act, stemmer="porter", workers=w)

        label = "ROUGE-Lsum F, stemmed"
    else:
        n = int(kind[5:])

        def ours(w: int | None) -> Any:
            return em.rouge_n_batch(exp, act, n=n, stemmer="porter", workers=w)

        label = f"ROUGE-{n} F, stemmed"

    def make() -> Callable[[], Any]:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer([kind], use_stemmer=True)
        pairs = list(zip(exp[:subset], act[:subset], strict=True))
        return lambda: [scorer.score(e, a)[kind].fmeasure for e, a in pairs]

    return measure(
        label, len(exp), lambda: ours(None), lambda: ours(1), "rouge-score", make, 100.0, subset
    )


def bench_sentence_bleu(exp: list[str], act: list[str], subset: int) -> Row:
    def make() -> Callable[[], Any]:
        import sacrebleu

        pairs = list(zip(exp[:subset], act[:subset], strict=True))
        return lambda: [sacrebleu.sentence_bleu(a, [e]).score for e, a in pairs]

    return measure(
        "sentence BLEU",
        len(exp),
        lambda: em.bleu_batch(exp, act),
        lambda: em.bleu_batch(exp, act, workers=1),
        "sacrebleu.sentence_bleu",
        make,
        30.0,
        subset,
    )


def bench_sentence_chrf(exp: list[str], act: list[str], subset: int, word_order: int) -> Row:
    def make() -> Callable[[], Any]:
        import sacrebleu

        pairs = list(zip(exp[:subset], act[:subset], strict=True))
        return lambda: [
            sacrebleu.sentence_chrf(a, [e], word_order=word_order).score for e, a in pairs
        ]

    return measure(
        "chrF++" if word_order == 2 else "chrF",
        len(exp),
        lambda: em.chrf_batch(exp, act, word_order=word_order),
        lambda: em.chrf_batch(exp, act, word_order=word_order, workers=1),
        "sacrebleu.sentence_chrf",
        make,
        30.0,
        subset,
    )


def bench_corpus(exp: list[str], act: list[str], subset: int, metric: str) -> Row:
    """Corpus BLEU or chrF of all pairs; the peer scores the first ``subset`` as its corpus."""
    ours = em.corpus_bleu if metric == "BLEU" else em.corpus_chrf

    def make() -> Callable[[], Any]:
        import sacrebleu

        peer = sacrebleu.corpus_bleu if metric == "BLEU" else sacrebleu.corpus_chrf
        hyps, refs = act[:subset], [exp[:subset]]
        return lambda: peer(hyps, refs).score

    return measure(
        f"corpus {metric}",
        len(exp),
        lambda: ours(exp, act),
        lambda: ours(exp, act, workers=1),
        f"sacrebleu.corpus_{metric.lower()}",
        make,
        10.0,
        subset,
    )


def print_table(rows: list[Row], n: int) -> None:
    print(
        f"\nthroughput, {n:,} pairs per metric, {os.cpu_count()} cores, best of {ROUNDS}"
        f" interleaved rounds (pairs/s; 1-minute load average {os.getloadavg()[0]:.1f})\n"
    )
    head = (
        f"{'metric':<30}{'evalmark':>13}{'1 thread':>12}  {'peer':<36}{'peer':>12}"
        f"{'ratio':>9}{'target':>9}  met"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        if r.theirs is None:
            print(
                f"{r.metric:<30}{r.ours:>13,.0f}{r.ours_serial:>12,.0f}  {r.peer:<36}"
                f"{'peer not installed':>30}"
            )
            continue
        ratio = r.ours / r.theirs
        met = "yes" if ratio >= r.target else "NO"
        print(
            f"{r.metric:<30}{r.ours:>13,.0f}{r.ours_serial:>12,.0f}  {r.peer:<36}"
            f"{r.theirs:>12,.0f}{ratio:>8.1f}x{r.target:>8.1f}x  {met}"
        )
    for r in rows:
        if r.note:
            print(f"  {r.metric}: {r.note}")


# ---------------------------------------------------------------------------- memory

_CHILD = r"""
import gc, json, sys
sys.path.insert(0, {bench!r})
import workload
import evalmark.metrics as em

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

metric, pairs, base, column = {metric!r}, {pairs}, {base}, {column!r}
exp, act = workload.text_pairs(base, seed=1)
reps = pairs // base
exp, act = exp * reps, act * reps
input_bytes = sum(len(s.encode()) for s in exp) + sum(len(s.encode()) for s in act)
if column:
    exp, act = em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act)
fn = {{"token_f1": em.token_f1_batch, "rouge_l": em.rouge_l_batch,
       "levenshtein": em.levenshtein_similarity_batch}}[metric]
fn(exp[:10] if not column else em.TextColumn.from_strings(["a"]),
   act[:10] if not column else em.TextColumn.from_strings(["b"]))  # load everything lazy
gc.collect()
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    reset = True
except OSError:
    reset = False
before_rss, before_hwm = rss_kb(), hwm_kb()
out = fn(exp, act)
after_hwm = hwm_kb()
assert len(out) == pairs
print(json.dumps({{"input_bytes": input_bytes, "rss_kb": before_rss, "hwm_before_kb": before_hwm,
                  "hwm_after_kb": after_hwm, "reset": reset}}))
"""


def memory_check(pairs: int, base: int) -> None:
    print(f"\npeak memory of one {pairs:,}-pair batch call (fresh subprocess each)")
    if pairs > base:
        print(f"  inputs: the {base:,}-pair workload repeated {pairs // base} times")
    head = f"  {'metric':<14}{'input':<12}{'input MB':>10}{'call peak MB':>14}{'x input':>9}"
    print(head + f"{'process MB':>13}{'x input':>9}")
    for column in (False, True):
        for metric in ("token_f1", "rouge_l", "levenshtein"):
            code = _CHILD.format(
                bench=str(HERE), metric=metric, pairs=pairs, base=base, column=column
            )
            proc = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=False
            )
            kind = "TextColumn" if column else "list[str]"
            if proc.returncode != 0:
                print(f"  {metric:<14}{kind:<12} failed: {proc.stderr.strip().splitlines()[-1:]}")
                continue
            m = json.loads(proc.stdout.strip().splitlines()[-1])
            mb = m["input_bytes"] / 1e6
            extra = max(0, m["hwm_after_kb"] - (m["rss_kb"] if m["reset"] else m["hwm_before_kb"]))
            extra_mb = extra * 1024 / 1e6
            peak_mb = m["hwm_after_kb"] * 1024 / 1e6
            print(
                f"  {metric:<14}{kind:<12}{mb:>10.1f}{extra_mb:>14.1f}{extra_mb / mb:>8.2f}x"
                f"{peak_mb:>13.1f}{peak_mb / mb:>8.2f}x"
            )
            if not m["reset"]:
                print("    (could not reset VmHWM: the call peak is a lower bound)")
    print("  call peak = VmHWM during the call above the RSS just before it (goal: < 2x input);")
    print("  process MB = the whole process's VmHWM, interpreter and Python strings included")


def agreement(exp: list[str], act: list[str], jexp: list[str], jact: list[str], k: int) -> None:
    """How often evalmark's values equal the peers' on the first ``k`` benchmark pairs."""
    import oracles

    print(f"\nagreement with the references on the first {k:,} pairs of each workload")
    e, a = exp[:k], act[:k]
    try:
        from rapidfuzz.distance import Levenshtein

        ours = em.levenshtein_similarity_batch(e, a).tolist()
        ref = [Levenshtein.normalized_similarity(x, y) for x, y in zip(e, a, strict=True)]
        print(f"  Levenshtein similarity == rapidfuzz: {sum(map(float.__eq__, ours, ref)):,}/{k:,}")
    except ImportError:
        print("  Levenshtein: peer not installed")
    try:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"])
        ours = em.rouge_l_batch(e, a).tolist()
        ref = [scorer.score(x, y)["rougeL"].fmeasure for x, y in zip(e, a, strict=True)]
        close = sum(abs(p - q) <= 1e-12 for p, q in zip(ours, ref, strict=True))
        print(f"  ROUGE-L F within 1e-12 of rouge-score: {close:,}/{k:,}")
    except ImportError:
        print("  ROUGE-L: peer not installed")
    try:
        from rouge_score import rouge_scorer

        le, la = as_lines(e), as_lines(a)
        for kind, ours in (
            ("rouge1", em.rouge_n_batch(e, a, stemmer="porter").tolist()),
            ("rouge2", em.rouge_n_batch(e, a, n=2, stemmer="porter").tolist()),
            ("rougeLsum", em.rouge_lsum_batch(le, la, stemmer="porter").tolist()),
        ):
            scorer = rouge_scorer.RougeScorer([kind], use_stemmer=True)
            texts = zip(le, la, strict=True) if kind == "rougeLsum" else zip(e, a, strict=True)
            ref = [scorer.score(x, y)[kind].fmeasure for x, y in texts]
            print(
                f"  {kind} F, stemmed == rouge-score: {sum(map(float.__eq__, ours, ref)):,}/{k:,}"
            )
    except ImportError:
        print("  ROUGE-N / ROUGE-Lsum: peer not installed")
    try:
        import sacrebleu

        for name, ours, peer in (
            ("sentence BLEU", em.bleu_batch(e, a), sacrebleu.sentence_bleu),
            ("chrF", em.chrf_batch(e, a), sacrebleu.sentence_chrf),
        ):
            ref = [peer(y, [x]).score for x, y in zip(e, a, strict=True)]
            close = sum(abs(p * 100 - q) <= 1e-9 for p, q in zip(ours, ref, strict=True))
            print(f"  {name} x 100 within 1e-9 of sacrebleu: {close:,}/{k:,}")
        gap = abs(em.corpus_bleu(e, a) * 100 - sacrebleu.corpus_bleu(a, [e]).score)
        print(f"  corpus BLEU x 100 - sacrebleu: {gap:.1e}")
    except ImportError:
        print("  BLEU / chrF: peer not installed")
    ours = em.token_f1_batch(e, a).tolist()
    ref = [oracles.squad_compute_f1(x, y) for x, y in zip(e, a, strict=True)]
    print(f"  token F1 == SQuAD compute_f1: {sum(map(float.__eq__, ours, ref)):,}/{k:,}")
    je, ja = jexp[:k], jact[:k]
    ours_json = em.json_match_batch(je, ja, numbers="strict").tolist()
    ref_json = [oracles.json_match(x, y, "strict") for x, y in zip(je, ja, strict=True)]
    same = sum(p == q for p, q in zip(ours_json, ref_json, strict=True))
    print(f"  JSON match (strict) == json.dumps(json.loads(...), sort_keys=True): {same:,}/{k:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=None, help="pairs per metric (100,000)")
    parser.add_argument("--quick", action="store_true", help="10,000 pairs, small memory check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds, best kept (3)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory check")
    parser.add_argument(
        "--memory-pairs", type=int, default=None, help="pairs in the memory check (1,000,000)"
    )
    parser.add_argument(
        "--only", default=None, help="comma-separated benches to run (all; no agreement check)"
    )
    args = parser.parse_args()
    global ROUNDS
    ROUNDS = max(1, args.rounds)
    n = args.n or (10_000 if args.quick else 100_000)
    subset = 1_000 if args.quick else 5_000

    print(f"generating {n:,} text pairs, JSON pairs and vector pairs (bench/workload.py) ...")
    exp, act = workload.text_pairs(n, seed=args.seed)
    jexp, jact = workload.json_pairs(n, seed=args.seed)
    large = max(subset, min(n, 20_000))
    benches: dict[str, Callable[[], Row]] = {
        "levenshtein": lambda: bench_levenshtein(exp, act),
        "rouge_l": lambda: bench_rouge(exp, act, subset),
        "token_f1": lambda: bench_token_f1(exp, act, large),
        "long_levenshtein": lambda: bench_long_levenshtein(exp, act),
        "long_rouge_l": lambda: bench_long_rouge(exp, act, max(1, subset // 25)),
        "cosine": lambda: bench_cosine(n, args.seed),
        "cosine_matrix": lambda: bench_cosine_matrix(n, args.seed),
        "json_match": lambda: bench_json(jexp, jact),
        "rouge1_stemmed": lambda: bench_rouge_stemmed(exp, act, subset, "rouge1"),
        "rouge2_stemmed": lambda: bench_rouge_stemmed(exp, act, subset, "rouge2"),
        "rouge_lsum_stemmed": lambda: bench_rouge_stemmed(exp, act, subset, "rougeLsum"),
        "bleu": lambda: bench_sentence_bleu(exp, act, subset),
        "chrf": lambda: bench_sentence_chrf(exp, act, subset, 0),
        "chrf_pp": lambda: bench_sentence_chrf(exp, act, subset, 2),
        "corpus_bleu": lambda: bench_corpus(exp, act, large, "BLEU"),
        "corpus_chrf": lambda: bench_corpus(exp, act, large, "chrF"),
    }
    chosen = args.only.split(",") if args.only else list(benches)
    unknown = [name for name in chosen if name not in benches]
    if unknown:
        parser.error(f"--only: unknown {', '.join(unknown)}; choose from {', '.join(benches)}")
    rows = [benches[name]() for name in chosen]
    print_table(rows, n)
    if not args.only:
        agreement(exp, act, jexp, jact, min(n, subset))
    if not args.no_memory:
        pairs = args.memory_pairs or (100_000 if args.quick else 1_000_000)
        memory_check(pairs, base=min(pairs, 10_000 if args.quick else 100_000))


if __name__ == "__main__":
    main()
