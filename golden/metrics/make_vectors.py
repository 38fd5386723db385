"""Write golden/metrics/vectors.jsonl: hand-chosen tricky inputs with REFERENCE values.

Every value comes from a reference, never from evalmark: rapidfuzz (Levenshtein), rouge-score
(ROUGE-L, tokenizer "rouge"), the SQuAD v2.0 compute_f1 restated in tests/oracles.py (token F1),
Python's json module (JSON, numbers "strict"), numpy in float64 (cosine), and the naive oracles
of tests/oracles.py where no package exists (token F1 "none", ROUGE-L "unicode", JSON numbers
"value"). Where an oracle and a package both exist, this script checks that they agree.

    python golden/metrics/make_vectors.py            # rewrite vectors.jsonl
    python golden/metrics/make_vectors.py --check    # exit 1 if the file is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein
from rouge_score import rouge_scorer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))
sys.path.insert(0, str(HERE.parents[1] / "bench"))
import oracles  # noqa: E402
import workload  # noqa: E402

OUT = HERE / "vectors.jsonl"
MEASURES = ("precision", "recall", "fmeasure")

# (expected, actual, why it is tricky)
TOKEN_F1_SQUAD = [
    ("", "", "both empty: 1.0"),
    ("", "the an a", "only articles: no tokens on either side, 1.0"),
    ("the", "", "gold normalizes to nothing, prediction empty: 1.0"),
    ("cat", "", "one side empty: 0.0"),
    ("The Cat", "cat", "lowercase and article"),
    ("the the the cat", "cat cat", "multiset counts"),
    ("A\u03a3.b", "a\u03c3b", "capital sigma before '.' and a letter: not final"),
    ("A.\u03a3", "a\u03c2", "capital sigma after a letter and '.': final"),
    ("U.S.A.", "usa", "ASCII punctuation removed"),
    ("don't", "dont", "ASCII apostrophe removed"),
    ("don\u2019t", "dont", "curly apostrophe is not ASCII punctuation"),
    ("an_apple", "anapple", "underscore is punctuation, removed before articles"),
    ("1,000", "1000", "comma in a number"),
    ("a-b", "ab", "hyphen removed joins words"),
    ("a\u0308 dog", "\u0308 dog", "U+0308 is not a word character for re: 'a' is an article"),
    ("a\u00bd x", "x", "½ is numeric, so 'a½' is one word and not an article"),
    ("the\u203f", "\u203f", "U+203F connector punctuation is not a re word character"),
    ("a\u200dthe", "\u200d", "zero-width joiner is not a re word character"),
    ("x\x1cy", "x y", "str.split() splits on U+001C"),
    ("x\x85y z", "x y z", "str.split() splits on U+0085"),
    ("A\u00a0cat", "cat", "NBSP is whitespace"),
    ("\u3000the\u3000cat\u3000", "cat", "ideographic space"),
    ("x\u180ey", "x y", "U+180E is not whitespace in Unicode 14"),
    ("x\u200by", "x y", "zero-width space is not whitespace"),
    ("caf\u00e9", "cafe\u0301", "no Unicode normalization"),
    ("KELVIN", "\u212aelvin", "Kelvin sign lowercases to ASCII k"),
    ("\u0130stanbul", "i\u0307stanbul", "dotted capital I lowercases to i + U+0307"),
    ("\u0130stanbul", "istanbul", "dotted capital I keeps its dot"),
    ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", "final sigma"),
    ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c3", "final sigma is not medial sigma"),
    ("\u03a3\u0391 \u03a3", "\u03c3\u03b1 \u03c3", "a lone capital sigma is not final"),
    ("STRASSE", "stra\u00dfe", "lower() does not fold ß"),
    ("\u0663 apples", "3 apples", "no digit folding"),
    ("The \U0001f600!", "\U0001f600", "emoji token, punctuation dropped"),
    ("\u01c5ungla", "\u01c6ungla", "titlecase digraph lowercases"),
    ("a an the", "the an a", "articles only, both sides"),
    ("Theatre", "atre", "'the' inside a word is kept"),
    ("THE END", "end", "uppercase article"),
]
TOKEN_F1_NONE = [
    ("", "", "both empty: 1.0"),
    ("", "x", "one empty: 0.0"),
    ("The Cat", "the cat", "no lowercasing"),
    ("cat.", "cat", "no punctuation removal"),
    ("a a b", "a b b", "multisets"),
    ("x\x1cy", "x y", "str.split() splits on U+001C"),
    ("the cat", "cat", "articles kept"),
]
ROUGE_PAIRS = [
    ("The cat sat on the mat.", "the cat is on a mat", "ordinary sentence"),
    ("", "", "both empty: 0.0"),
    ("x", "", "one empty: 0.0"),
    ("...", "...", "no tokens: 0.0"),
    ("\u212aelvin", "kelvin", "Kelvin sign lowercases to ASCII k"),
    ("\u0130", "i", "dotted capital I lowercases to i + U+0307; the mark is dropped"),
    ("caf\u00e9", "caf", "é is not [a-z0-9]"),
    ("na\u00efve", "na ve", "ï splits the word"),
    ("\u6771\u4eac tokyo", "tokyo", "CJK has no rouge tokens"),
    ("a b c d", "d c b a", "reversed"),
    ("a b a b", "b a b a", "shifted"),
    ("A1B2", "a1b2", "digits and letters form one token"),
    ("don't", "don t", "apostrophe splits"),
    ("x_y", "x y", "underscore splits"),
    ("the the the", "the", "repeated tokens"),
    ("a b", "a x b y", "precision 0.5, recall 1"),
    ("\u01c5", "d\u017e", "titlecase digraph has no ASCII lowercase"),
    ("\ufb01x", "fix", "the fi ligature does not lowercase to ASCII"),
    (
        " ".join(f"w{i % 97}" for i in range(300)),
        " ".join(f"w{(i * 7) % 97}" for i in range(260)),
        "more than 64 tokens a side (multi-word bit vectors)",
    ),
]
ROUGE_UNICODE_PAIRS = [
    ("\u6771\u4eac \u30bf\u30ef\u30fc", "\u6771\u4eac", "CJK tokens"),
    ("Caf\u00e9 au lait", "caf\u00e9", "accented letters kept in the token"),
    ("na\u00efve", "naive", "no accent folding"),
    ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", "final sigma"),
    ("x_y", "x y", "underscore separates"),
    ("\u0663\u0664", "34", "no digit folding"),
    ("\u00bd cup", "cup", "vulgar fraction is numeric"),
    ("", "", "both empty: 0.0"),
    ("\U0001f600 \U0001f600", "\U0001f600", "emoji are not letters: no tokens"),
    ("A:\u03a3:B x", "a\u03c3b x", "sigma between case-ignorable colons stays small"),
]
LEVENSHTEIN_PAIRS = [
    ("", "", "both empty"),
    ("", "abc", "one empty"),
    ("kitten", "sitting", "classic"),
    ("flaw", "lawn", "classic"),
    ("\U0001f600", "\U0001f603", "astral code points"),
    ("e\u0301", "\u00e9", "combining mark: two code points against one"),
    ("\ud800", "\udc00", "lone surrogates are code points"),
    ("\ud83d\ude00", "\U0001f600", "a surrogate pair in a str is two code points"),
    ("abc", "cba", "reversal"),
    ("a" * 70 + "b", "b" + "a" * 70, "crosses a 64-bit word"),
    ("a" * 65, "a" * 64, "one past a word"),
    ("x" * 200, "y" * 150, "nothing in common"),
    ("\u6771\u4eac", "\u4eac\u90fd", "CJK"),
    ("\U0010ffff", "\U0010fffe", "highest code points"),
    ("ab\x00cd", "abcd", "NUL is a character"),
    ("The cat sat on the mat.", "The cat sat on a mat!", "sentence"),
]
COSINE_CASES: list[tuple[list[float], list[float], str, str]] = [
    ([1.0, 0.0], [0.0, 1.0], "float64", "orthogonal"),
    ([1.0, 2.0, 3.0], [-1.0, -2.0, -3.0], "float64", "opposite"),
    ([0.0, 0.0, 0.0], [1.0, 2.0, 3.0], "float64", "zero vector gives 0.0"),
    ([0.0, 0.0], [0.0, 0.0], "float32", "both zero"),
    ([1e20, 1e20], [1e20, -3e20], "float32", "float32 squares overflow float32"),
    ([1e-30, 2e-30], [2e-30, 1e-30], "float32", "float32 squares underflow float32"),
    ([3e-39, 0.0], [3e-39, 1e-39], "float32", "subnormal float32"),
    ([3.0, 4.0], [4.0, 3.0], "float64", "0.96"),
]
JSON_PAIRS = [
    ("1", "1.0", "int against float"),
    ("10e999999999999999999", "1e1000000000000000000", "an exponent of 10^18 written two ways"),
    ("-1e9223372036854775807", "-10e9223372036854775806", "an exponent at the i64 limit"),
    ("1", "1e0", "exponent"),
    ("1", "0.1e1", "fraction and exponent"),
    ("100", "1E+2", "capital E, explicit plus"),
    ("0", "-0", "negative zero integer"),
    ("0.0", "-0.0", "negative zero float"),
    ("0", "0e99999999999999999999", "zero with a huge exponent"),
    ("9007199254740993", "9007199254740992", "beyond 2**53: no float rounding"),
    ("9007199254740993.0", "9007199254740992.0", "floats that round to the same double"),
    ("0.1", "0.10000000000000001", "the same double, different decimals"),
    ("1e400", "1e400", "beyond float64"),
    ("1e400", "2e400", "both infinite as float64, different as decimals"),
    ("1e99999999999999999999", "10e99999999999999999998", "exponent beyond 64 bits"),
    ("123456789012345678901234567890", "123456789012345678901234567890.000", "big integer"),
    ("true", "1", "true is not 1"),
    ("false", "0", "false is not 0"),
    ("null", "false", "null is not false"),
    ("[true]", "[1]", "nested true is not 1"),
    ('{"a": 1, "a": 2}', '{"a": 2}', "duplicate keys: last wins"),
    ('{"a": 1, "a": 2}', '{"a": 1}', "duplicate keys: first loses"),
    ('{"a": {"b": [1, {"c": 2, "d": 3}]}}', '{"a": {"b": [1, {"d": 3, "c": 2}]}}', "deep order"),
    ("[1, 2]", "[2, 1]", "arrays keep order"),
    ('"\\u00e9"', '"\u00e9"', "escape against literal"),
    ('"e\\u0301"', '"\u00e9"', "no Unicode normalization"),
    ('"\\ud83d\\ude00"', '"\U0001f600"', "surrogate-pair escape"),
    ('"a\\/b"', '"a/b"', "escaped solidus"),
    ("{}", "[]", "empty object is not empty array"),
    ("[]", " [ ] ", "whitespace"),
    ("1", "NaN", "NaN is not JSON"),
    ("1", "-Infinity", "Infinity is not JSON"),
    ("[1]", "[1,]", "trailing comma"),
    ("{}", "{} {}", "trailing content"),
    ("1", "01", "leading zero"),
    ("1", "+1", "leading plus"),
    ("1", "1.", "bare point"),
    ('"a"', "'a'", "single quotes"),
    ('"a\\tb"', '"a\tb"', "raw control character in a string"),
    ("1", "\ufeff1", "byte order mark"),
    ("1", "", "empty text"),
    ("[" * 200 + "]" * 200, "[" * 200 + "]" * 200, "200 levels deep"),
]


def encode_text(value: Any) -> Any:
    """Texts with lone surrogates become {"codepoints": [...]}: a JSON reader would pair up a
    high and a low surrogate escape into one astral character and lose the distinction."""
    if isinstance(value, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return {"codepoints": [ord(c) for c in value]}
    return value


def decode_text(value: Any) -> Any:
    """The inverse of ``encode_text``."""
    if isinstance(value, dict) and "codepoints" in value:
        return "".join(map(chr, value["codepoints"]))
    return value


def _record(
    metric: str, kwargs: dict[str, Any], expected: Any, actual: Any, value: Any, why: str
) -> dict[str, Any]:
    return {
        "metric": metric,
        "kwargs": kwargs,
        "expected": encode_text(expected),
        "actual": encode_text(actual),
        "value": value,
        "why": why,
    }


def build() -> list[dict[str, Any]]:
    """All golden records, in a fixed order."""
    out: list[dict[str, Any]] = []
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    wl_exp, wl_act = workload.text_pairs(12, seed=2026)
    workload_pairs = [
        (e, a, "shared benchmark workload") for e, a in zip(wl_exp, wl_act, strict=True)
    ]

    for e, a, why in TOKEN_F1_SQUAD + workload_pairs:
        value = oracles.squad_compute_f1(e, a)
        assert oracles.token_f1(e, a, "squad") == value, (e, a)
        out.append(_record("token_f1", {"normalizer": "squad"}, e, a, value, why))
    for e, a, why in TOKEN_F1_NONE:
        out.append(
            _record("token_f1", {"normalizer": "none"}, e, a, oracles.token_f1(e, a, "none"), why)
        )

    for e, a, why in ROUGE_PAIRS + workload_pairs:
        score = scorer.score(e, a)["rougeL"]
        for measure in MEASURES:
            value = getattr(score, measure)
            assert oracles.rouge_l(e, a, "rouge", measure) == value, (e, a, measure)
            kwargs = {"tokenizer": "rouge", "measure": measure}
            out.append(_record("rouge_l", kwargs, e, a, value, why))
    for e, a, why in ROUGE_UNICODE_PAIRS:
        for measure in MEASURES:
            kwargs = {"tokenizer": "unicode", "measure": measure}
            value = oracles.rouge_l(e, a, "unicode", measure)
            out.append(_record("rouge_l", kwargs, e, a, value, why))

    for e, a, why in LEVENSHTEIN_PAIRS + workload_pairs:
        d = Levenshtein.distance(e, a)
        if max(len(e), len(a)) <= 300:
            assert oracles.levenshtein_distance(e, a) == d, (e, a)
        out.append(_record("levenshtein_distance", {}, e, a, d, why))
        sim = Levenshtein.normalized_similarity(e, a)
        out.append(_record("levenshtein_similarity", {}, e, a, sim, why))

    va, vb = workload.vectors(2, 384, seed=2026)
    cosine_cases = [*COSINE_CASES, (va[0].tolist(), vb[0].tolist(), "float32", "workload 384-d")]
    for e, a, dtype, why in cosine_cases:
        x = np.array(e, dtype=dtype)
        y = np.array(a, dtype=dtype)
        value = oracles.cosine(x, y)
        out.append(_record("cosine", {"dtype": dtype}, x.tolist(), y.tolist(), value, why))

    json_exp, json_act = workload.json_pairs(6, seed=2026)
    json_pairs = [
        *JSON_PAIRS,
        *((e, a, "shared benchmark workload") for e, a in zip(json_exp, json_act, strict=True)),
    ]
    for e, a, why in json_pairs:
        for numbers in ("value", "strict"):
            value = oracles.json_match(e, a, numbers)
            out.append(_record("json_match", {"numbers": numbers}, e, a, value, why))
    for text in oracles.STRICT_CANONICAL_CASES:
        canon = oracles.canonical_json_strict(text)
        out.append(
            _record("canonical_json", {"numbers": "strict"}, text, None, canon, "json.dumps")
        )
    # invalid expected documents: the spec's error, confirmed invalid by the json module
    for text, why in [("{", "unclosed object"), ("[1,]", "trailing comma"), ("NaN", "NaN")]:
        for numbers in ("value", "strict"):
            try:
                oracles.json_match(text, "1", numbers)
            except oracles.InvalidJSON:
                pass
            else:
                raise AssertionError(f"{text!r} should be invalid")
            kwargs = {"numbers": numbers}
            out.append(_record("json_match", kwargs, text, "1", "MetricInputError", why))
    return out


def render(records: list[dict[str, Any]]) -> str:
    # ASCII escapes keep lone surrogates and invisible characters readable and writable.
    return "".join(json.dumps(r, ensure_ascii=True, sort_keys=True) + "\n" for r in records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if vectors.jsonl is stale")
    args = parser.parse_args()
    text = render(build())
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} vectors to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
