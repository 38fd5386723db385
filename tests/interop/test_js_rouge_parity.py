"""js-rouge 3.2's own test expectations for ROUGE-N and what it uses (the sentence segmenter,
the Treebank tokenizer, n-grams, F-beta, the casing helpers), against evalmark's port.

promptfoo's ``rouge-n`` calls ``n(output, value, {})`` of this package; the values below are
the package's test file's, copied as data. Cases of js-rouge that pass custom callbacks
(tokenizer, n-gram generator) are left out: promptfoo passes none, and the port has none.
"""

from __future__ import annotations

import math
import sys

import pytest

from evalmark.strategies._js_rouge import f_measure, js_rouge_n, n_gram, tree_bank_tokenize
from evalmark.strategies._js_rouge_segment import (
    char_is_upper_case,
    sentence_segment,
    str_is_title_case,
)

BRACKETS = [("(", ")"), ("[", "]"), ("{", "}"), ("<", ">")]
ACRONYMS = ["U.S.", "U.S.A.", "E.U."]
BREAKS = ["\n", "\r\n", "\r"]
MIN = 5e-324

SEGMENTS: list[tuple[str, list[str]]] = [
    ("", []),
    ("Hello World. My name is Jonas.", ["Hello World.", "My name is Jonas."]),
    ("What is your name? My name is Jonas.", ["What is your name?", "My name is Jonas."]),
    ("There it is! I found it.", ["There it is!", "I found it."]),
    ("My name is Jonas E. Smith.", ["My name is Jonas E. Smith."]),
    ("Please turn to p. 55.", ["Please turn to p. 55."]),
    ("Were Jane and co. at the party?", ["Were Jane and co. at the party?"]),
    (
        "They closed the deal with Pitt, Briggs & Co. at noon.",
        ["They closed the deal with Pitt, Briggs & Co. at noon."],
    ),
    ("Let's ask Jane and co. They should know.", ["Let's ask Jane and co.", "They should know."]),
    (
        "They closed the deal with Pitt, Briggs & Co. It closed yesterday.",
        ["They closed the deal with Pitt, Briggs & Co.", "It closed yesterday."],
    ),
    ("I can see Mt. Fuji from here.", ["I can see Mt. Fuji from here."]),
    (
        "St. Michael's Church is on 5th st. near the light.",
        ["St. Michael's Church is on 5th st. near the light."],
    ),
    ("That is JFK Jr.'s book.", ["That is JFK Jr.'s book."]),
    ("I visited the U.S.A. last year.", ["I visited the U.S.A. last year."]),
    ("I live in the E.U. How about you?", ["I live in the E.U.", "How about you?"]),
    ("I live in the U.S. How about you?", ["I live in the U.S.", "How about you?"]),
    ("(I live in the U.S.) How about you?", ["(I live in the U.S.)", "How about you?"]),
    *[
        (
            f"I live in the {a} Alice lives in Canada.",
            [f"I live in the {a}", "Alice lives in Canada."],
        )
        for a in ACRONYMS
    ],
    ("I have lived in the U.S. for 20 years.", ["I have lived in the U.S. for 20 years."]),
    ("Mt. Fuji", ["Mt. Fuji"]),
    (
        "The (U.S.) Government issued a statement.",
        ["The (U.S.) Government issued a statement."],
    ),
    ("She has $100.00 in her bag.", ["She has $100.00 in her bag."]),
    ("She has $100.00. It is in her bag.", ["She has $100.00.", "It is in her bag."]),
    (
        "He teaches science (He previously worked for 5 years as an engineer.) at the local "
        "University.",
        [
            "He teaches science (He previously worked for 5 years as an engineer.) at the local "
            "University."
        ],
    ),
    (
        "Her email is Jane.Doe@example.com. I sent her an email.",
        ["Her email is Jane.Doe@example.com.", "I sent her an email."],
    ),
    (
        "The site is: https://www.example.50.com/new-site/awesome_content.html. "
        "Please check it out.",
        [
            "The site is: https://www.example.50.com/new-site/awesome_content.html.",
            "Please check it out.",
        ],
    ),
    (
        "She turned to him, 'This is great.' she said.",
        ["She turned to him, 'This is great.' she said."],
    ),
    ('He said... "what?" Next.', ['He said... "what?"', "Next."]),
    ('He said "hello." Then left.', ['He said "hello."', "Then left."]),
    ('"Hello!" "Goodbye!"', ['"Hello!"', '"Goodbye!"']),
    ('(Stop.) "Next."', ["(Stop.)", '"Next."']),
    ('He moved to the "U.S." How about you?', ['He moved to the "U.S."', "How about you?"]),
    ('(He said "Stop.") Next came rain.', ['(He said "Stop.")', "Next came rain."]),
    *[
        (text, [text])
        for text in [
            'Use "e.g." here.',
            '"Dr." is a title.',
            '"U.S." is an abbreviation.',
            'She wrote "etc.", then left.',
            'She wrote "etc." , then left.',
            'She wrote "etc."; then left.',
            'She wrote "etc.": more would follow.',
            'She wrote "hello." then left.',
            'The label was "Hello!" 100 times larger.',
            "The result was (surprisingly!) 100% accurate.",
            "The result was (surprisingly!) -- completely accurate.",
            "The result was (surprisingly!) $100.",
            "The winner was (surprisingly!) Alice Smith.",
            "The winner was (Surprisingly!) Alice Smith.",
            "The winner was ((surprisingly!)) Alice Smith.",
            'The winner was (she said "Wow!") Alice Smith.',
        ]
    ],
    *[
        case
        for o, c in BRACKETS
        for case in [
            (
                f"{o}Nobody noticed.{c} Next came rain.",
                [f"{o}Nobody noticed.{c}", "Next came rain."],
            ),
            (
                f"{o} Nobody noticed. {c} Next came rain.",
                [f"{o} Nobody noticed. {c}", "Next came rain."],
            ),
            (f"{o}Nobody noticed.{c} then left.", [f"{o}Nobody noticed.{c} then left."]),
            (f"{o} Nobody noticed. {c} then left.", [f"{o} Nobody noticed. {c} then left."]),
            (f'He said "{o}Stop. {c} " Next.', [f'He said "{o}Stop. {c} "', "Next."]),
        ]
    ],
    ("Hello!! Long time no see.", ["Hello!!", "Long time no see."]),
    ("Hello?? Who is there?", ["Hello??", "Who is there?"]),
    ("Hello!? Is that you?", ["Hello!?", "Is that you?"]),
    ("Hello?! Is that you?", ["Hello?!", "Is that you?"]),
    (
        "This is a sentence\ncut off in the middle because pdf.",
        ["This is a sentence cut off in the middle because pdf."],
    ),
    ("It was a cold \nnight in the city.", ["It was a cold night in the city."]),
    (
        "features\ncontact manager\nevents, activities\n",
        ["features", "contact manager", "events, activities"],
    ),
    *[(f"Alpha.{b}Beta.{b}Gamma.", ["Alpha.", "Beta.", "Gamma."]) for b in BREAKS],
    *[(f"alpha{b}beta{b}gamma", ["alpha", "beta", "gamma"]) for b in BREAKS],
    *[(f"The quick{b}brown{b}fox jumps.", ["The quick brown fox jumps."]) for b in BREAKS],
    ("\nAlpha.\r\n \t\nBeta.\n", ["Alpha.", "Beta."]),
    ("alpha\n\n \n beta\n", ["alpha", "beta"]),
    ("We chose option A. Next step", ["We chose option A.", "Next step"]),
    ("Use Plan A. Next step", ["Use Plan A.", "Next step"]),
    ("We visited D.C. Today", ["We visited D.C.", "Today"]),
    *[
        (f"Did you see Albert I.{b}Jones yesterday?", ["Did you see Albert I. Jones yesterday?"])
        for b in BREAKS
    ],
    *[
        (f"I met{b}Albert\tI.{b}Jones at{b}Acme.", ["I met Albert I. Jones at Acme."])
        for b in BREAKS
    ],
    *[(f"I met{b}Albert\tI.{b}van der{b}Meer.", ["I met Albert I. van der Meer."]) for b in BREAKS],
    ("D.C. Next.", ["D.C.", "Next."]),
    ("I ate an egg. Tomorrow is Monday.", ["I ate an egg.", "Tomorrow is Monday."]),
    ("She ate ice. We left.", ["She ate ice.", "We left."]),
    ("Use e.g. Examples.", ["Use e.g. Examples."]),
    ("That is i.e. An example.", ["That is i.e. An example."]),
    (
        "You can find it at N°. 1026.253.553. That is where the treasure is.",
        ["You can find it at N°. 1026.253.553.", "That is where the treasure is."],
    ),
    (
        "She works at Yahoo! in the accounting department.",
        ["She works at Yahoo! in the accounting department."],
    ),
    (
        "We make a good team, you and I. Did you see Albert I. Jones yesterday?",
        ["We make a good team, you and I.", "Did you see Albert I. Jones yesterday?"],
    ),
    (
        "Thoreau argues that by simplifying one's life, \"the laws of the universe will appear "
        'less complex...."',
        [
            "Thoreau argues that by simplifying one's life, \"the laws of the universe will "
            'appear less complex...."'
        ],
    ),
    (
        '"Bohr [...] used the analogy of parallel stairways [...]" (Smith 55).',
        ['"Bohr [...] used the analogy of parallel stairways [...]" (Smith 55).'],
    ),
    *[
        (fragment * 5000 + "End.", [normalized * 5000 + "End."])
        for fragment, normalized in [("Dr. ", "Dr. "), ("e.g. ", "e.g. "), ("Dr.\n", "Dr. ")]
    ],
    ("a" * 64_000, ["a" * 64_000]),
    (f"  prefix{' ' * 64_000}suffix.  ", [f"prefix{' ' * 64_000}suffix."]),
    ("just some text without any ending", ["just some text without any ending"]),
    ("intro\nAlpha. Beta.\ntail", ["intro", "Alpha.", "Beta.", "tail"]),
    ("   ", ["   "]),
    ("\t\t", ["\t\t"]),
    ("\r\n", ["\r\n"]),
    (
        "There are cats, dogs, etc. and more animals.",
        ["There are cats, dogs, etc. and more animals."],
    ),
    ("Please see p. 10 for details.", ["Please see p. 10 for details."]),
    ("He said.. and then continued.", ["He said.. and then continued."]),
    ("Wait... what?", ["Wait... what?"]),
    ("Wait...  what?", ["Wait... what?"]),
    ("Wait...\twhat?", ["Wait...\twhat?"]),
    ("Wait...what?", ["Wait...what?"]),
    *[(f"Wait...{b}what?", ["Wait... what?"]) for b in BREAKS],
    *[(f"Wait...{b}what? Next step", ["Wait... what?", "Next step"]) for b in BREAKS],
    *[(f'He said "Stop.{b}" Next.', ['He said "Stop. "', "Next."]) for b in BREAKS],
    *[(f'He said "Stop.{b}"', ['He said "Stop. "']) for b in BREAKS],
    *[(f'(He said "Stop.{b}") Next.', ['(He said "Stop. ")', "Next."]) for b in BREAKS],
]


@pytest.mark.parametrize(("text", "sentences"), SEGMENTS, ids=lambda v: repr(v)[:40])
def test_sentences_are_js_rouges(text: str, sentences: list[str]) -> None:
    assert sentence_segment(text) == sentences


@pytest.mark.parametrize(
    "text",
    ["U.S. Government", "The U.S. Government policy.", "E.U. Commission", "U.S.A. Today"],
)
def test_segmenting_keeps_acronym_tokens(text: str) -> None:
    tokens = [
        token for sentence in sentence_segment(text) for token in tree_bank_tokenize(sentence)
    ]
    assert tokens == tree_bank_tokenize(text)


@pytest.mark.parametrize(
    "text",
    ["." * 10_000, "word. " * 1000, f"{' ' * 10_000}text. more text.", "!" * 10_000, "!?" * 5000],
    ids=["dots", "words", "spaces", "bangs", "mixed"],
)
def test_pathological_texts_segment_without_losing_text(text: str) -> None:
    """js-rouge's ReDoS cases (no time bound here): every non-blank character is kept."""
    assert "".join("".join(sentence_segment(text)).split()) == "".join(text.split())


WHITESPACE = [" ", "\t", "\n", "\r\n", "\u00a0"]
CONTRACTIONS = [
    ("cannot", ["can", "not"]),
    ("d'ye", ["d", "'ye"]),
    ("gimme", ["gim", "me"]),
    ("gonna", ["gon", "na"]),
    ("gotta", ["got", "ta"]),
    ("lemme", ["lem", "me"]),
    ("more'n", ["more", "'n"]),
    ("wanna", ["wan", "na"]),
    ("'tis", ["'t", "is"]),
    ("'twas", ["'t", "was"]),
]
TOKENS: list[tuple[str, list[str]]] = [
    *[(a, [a]) for a in ACRONYMS],
    *[(f'"{a}"', ["``", a, "''"]) for a in ACRONYMS],
    *[(f"{o} Nobody noticed. {c}", [o, "Nobody", "noticed", ".", c]) for o, c in BRACKETS],
    *[
        (f'"{o} Nobody noticed. {c} "', ["``", o, "Nobody", "noticed", ".", c, "''"])
        for o, c in BRACKETS
    ],
    ("", []),
    *[(f"alpha{s}beta", ["alpha", "beta"]) for s in WHITESPACE],
    *[(f"{s}They'll{s}go.{s}", ["They", "'ll", "go", "."]) for s in WHITESPACE],
    *[(s * 3, []) for s in WHITESPACE],
    *[(f"{w} {w} {w.upper()}", [*t, *t, *(x.upper() for x in t)]) for w, t in CONTRACTIONS],
    ("They'll save and invest more.", ["They", "'ll", "save", "and", "invest", "more", "."]),
    ("hi, my name can't hello,", ["hi", ",", "my", "name", "ca", "n't", "hello", ","]),
    (
        "Good muffins cost $3.88 in New York.",
        ["Good", "muffins", "cost", "$", "3.88", "in", "New", "York", "."],
    ),
    ("Note: hello, world:", ["Note", ":", "hello", ",", "world", ":"]),
    ("12,000 items at 12:30,", ["12,000", "items", "at", "12:30", ","]),
    ("12,000,000 and 3.88.", ["12,000,000", "and", "3.88", "."]),
    (
        '"We beat some pretty good teams to get here," Slocum said.',
        [
            "``",
            "We",
            "beat",
            "some",
            "pretty",
            "good",
            "teams",
            "to",
            "get",
            "here",
            ",",
            "''",
            "Slocum",
            "said",
            ".",
        ],
    ),
    (
        '5" nails and "wide" boards.',
        ["5", "''", "nails", "and", "``", "wide", "''", "boards", "."],
    ),
]


@pytest.mark.parametrize(("text", "tokens"), TOKENS, ids=lambda v: repr(v)[:40])
def test_tokens_are_js_rouges(text: str, tokens: list[str]) -> None:
    assert tree_bank_tokenize(text) == tokens
    assert tree_bank_tokenize(text) == tokens  # no state kept between calls


def test_n_grams_are_js_rouges() -> None:
    data = ["a", "b", "c", "d"]
    assert n_gram(data, 1) == [("a",), ("b",), ("c",), ("d",)]
    assert n_gram(data) == [("a", "b"), ("b", "c"), ("c", "d")]
    assert n_gram(data, 3) == [("a", "b", "c"), ("b", "c", "d")]
    assert n_gram(data, 4) == [("a", "b", "c", "d")]
    # js-rouge joins a gram's tokens into one string; tuples keep them apart as it does
    assert n_gram(["new york", "city"]) != n_gram(["new", "york city"])
    for size in [5, -1, 0, 1.5, math.nan, math.inf, -math.inf]:
        with pytest.raises(ValueError):
            n_gram(data, size)  # type: ignore[arg-type]


def test_f_measure_is_js_rouges() -> None:
    for bad in [math.nan, math.inf, -math.inf]:
        with pytest.raises(ValueError):
            f_measure(bad, 0.5)
        with pytest.raises(ValueError):
            f_measure(0.5, bad)
    for beta in [math.nan, -math.inf, -1]:
        with pytest.raises(ValueError, match="beta"):
            f_measure(0, 0, beta)
    for beta in [1e154, 1e200, sys.float_info.max]:
        assert f_measure(1, 0.5, beta) == pytest.approx(0.5, abs=5e-3)
        assert f_measure(0.5, 1, beta) == pytest.approx(1, abs=5e-3)
        assert f_measure(0, 0.5, beta) == 0
        assert f_measure(0.5, 0, beta) == 0
    assert f_measure(1e-200, 2e-200) / 1e-200 == pytest.approx(4 / 3, abs=5e-3)
    assert f_measure(1e-200, 1e-200, 2) == 1e-200
    assert f_measure(1e-300, 0.5, 1e200) == 0.5
    assert f_measure(MIN, 2e-124, 1e100) / 1e-124 == pytest.approx(1.4236856378, abs=5e-10)
    assert f_measure(2e-124, MIN, 1e-100) / 1e-124 == pytest.approx(1.4236856378, abs=5e-10)
    assert f_measure(MIN, 1, 1e161) == pytest.approx(0.0470804798173759, abs=5e-15)
    assert f_measure(MIN, 1, sys.float_info.max) == 1
    assert f_measure(1, MIN, 2) == MIN
    for p, r, beta in [
        (1.737610985955693e-134, 1, 1.8844791646561947e105),
        (0.8, 0.7999999999999999, 2.5),
    ]:
        for score in [f_measure(p, r, beta), f_measure(r, p, 1 / beta)]:
            assert min(p, r) <= score <= max(p, r)
    with pytest.raises(ValueError):
        f_measure(10, 0.5)
    with pytest.raises(ValueError):
        f_measure(0.5, 10)
    with pytest.raises(ValueError):
        f_measure(0.5, 0.75, -1)
    assert f_measure(0.5, 0.75, math.inf) == 0.75
    for beta in [0.0, -0.0]:
        assert f_measure(0.5, 0.75, beta) == 0.5
        assert f_measure(MIN, 1, beta) == MIN
    assert f_measure(0.5, 0.75, 1) == pytest.approx(0.6, abs=5e-16)
    assert f_measure(0.5, 0.75, 2) == pytest.approx(1.875 / 2.75, abs=5e-11)
    assert f_measure(0.5, 0.75, 0.5) == pytest.approx((1.25 * 0.5 * 0.75) / 0.875, abs=5e-11)
    assert f_measure(0, 0, 1) == 0
    assert f_measure(0, 0.5, 1) == 0
    assert f_measure(0.5, 0, 1) == 0
    assert f_measure(0.5, 0, 0) == 0


def test_casing_helpers_are_js_rouges() -> None:
    for bad in ["abcd", ""]:
        with pytest.raises(ValueError):
            char_is_upper_case(bad)
    assert [char_is_upper_case(c) for c in "Aa1ÜÉÑüéñ"] == [True, False, False] + [True] * 3 + [
        False
    ] * 3
    assert str_is_title_case("Abcd")
    assert not str_is_title_case("abcd")
    assert not str_is_title_case("aBcD")
    assert not str_is_title_case("")
    assert not str_is_title_case(" \t\r\n")


CAND = "pulses may ease schizophrenic voices"
REFS = [
    "magnetic pulse series sent through brain may ease schizophrenic voices",
    "yale finds magnetic stimulation some relief to schizophrenics imaginary voices",
]


def test_rouge_n_is_js_rouges() -> None:
    assert js_rouge_n("Alpha. Beta.", "Beta. Alpha.") == 1
    for candidate, reference in [("", REFS[0]), (CAND, ""), (" \t\r\n", "alpha beta")]:
        with pytest.raises(ValueError, match="cannot be an empty string"):
            js_rouge_n(candidate, reference, n=2)
    with pytest.raises(ValueError, match="Reference cannot"):
        js_rouge_n("alpha beta", " \t\r\n")
    assert js_rouge_n(CAND, REFS[0], n=2, beta=1) == pytest.approx(6 / 13, abs=5e-16)
    assert js_rouge_n(CAND, REFS[1], n=2, beta=1) == 0
    assert js_rouge_n("the cat sat on the mat", "the cat sat on the mat", n=1) == 1
    assert js_rouge_n("a b a b", "a b a b", n=2) == 1
    assert js_rouge_n("a b a b a", "a b a b a", n=3) == 1
    assert js_rouge_n("a a a b", "a a b b") == pytest.approx(3 / 4, abs=5e-3)
    for beta, expected in [(0, 2 / 3), (1, 4 / 5), (math.inf, 1)]:
        assert js_rouge_n("a a a", "a a", beta=beta) == pytest.approx(expected, abs=5e-3)
    assert js_rouge_n(CAND, REFS[0], n=2, beta=0) == 3 / 4
    assert js_rouge_n(CAND, REFS[1], n=2, beta=0) == 0
    for size in [math.nan, math.inf, -math.inf, -1, 0, 1.5]:
        with pytest.raises(ValueError):
            js_rouge_n("a b", "c d", n=size)  # type: ignore[arg-type]
    for beta in [math.nan, -math.inf, -1]:
        with pytest.raises(ValueError, match="beta"):
            js_rouge_n("a b", "a b", beta=beta)


def test_rouge_n_input_handling_is_js_rouges() -> None:
    for brk in BREAKS:
        assert js_rouge_n(f'He said "Stop.{brk}" Next.', 'He said "Stop." Next.') == 1
        assert js_rouge_n(f'He said "Stop.{brk}"', 'He said "Stop."') == 1
    assert js_rouge_n("A B", "a b") == 0
    assert js_rouge_n("a b", "a b c", beta=1e200) == js_rouge_n("a b", "a b c", beta=math.inf)
    assert js_rouge_n("A B C", "a b", beta=math.inf, case_sensitive=False) == 1
    for text in ["alpha\tbeta", "alpha\nbeta", "alpha\u00a0beta"]:
        assert js_rouge_n(text, "alpha beta") == 1
    assert js_rouge_n("Note: 12,000 items", "Note : 12,000 items") == 1
    assert js_rouge_n("12,000 items", "12 000 items") < 1
    for text, tokens in [
        ('He said... "what?" Next.', "He said ... `` what ? '' Next ."),
        ('Use "e.g." here.', "Use `` e.g. '' here ."),
        ('"Dr." is a title.', "`` Dr. '' is a title ."),
        ('"U.S." is an abbreviation.', "`` U.S. '' is an abbreviation ."),
        ('She wrote "etc.", then left.', "She wrote `` etc. '' , then left ."),
    ]:
        assert js_rouge_n(text, tokens) == 1
    for o, c in BRACKETS:
        sentence, spaced = f"{o}Nobody noticed.{c}", f"{o} Nobody noticed. {c}"
        assert js_rouge_n(f"{sentence} Next came rain.", f"{spaced} Next came rain.") == 1
        assert js_rouge_n(f"{sentence} then left.", f"{spaced} then left.") == 1
        assert js_rouge_n(f'He said "{o}Stop.{c}" Next.', f'He said "{o}Stop. {c} " Next.') == 1
    assert js_rouge_n("Alpha. Beta.", "Alpha . Beta .") == 1
    assert js_rouge_n("Alpha. Beta.", "alpha . beta .", case_sensitive=False) == 1
    assert (
        js_rouge_n(
            "Use etc. Another sentence.", "use etc . another sentence .", case_sensitive=False
        )
        == 1
    )
    assert js_rouge_n("Hello World", "hello world") == 0
    assert js_rouge_n("Hello World", "hello world", case_sensitive=False) == 1
    assert 0 < js_rouge_n("The cat", "the CAT sat", case_sensitive=False) < 1
