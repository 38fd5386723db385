"""The metric table declares each metric once: the public functions, their kernels, options and
defaults, and the table in docs/metrics.md agree with it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import evalmark.metrics as em
from evalmark import _core
from evalmark.metrics import METRICS
from evalmark.metrics._table import FUNCTIONS, Metric, metric_table_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
SCALE = DOCS.with_name("scale.md")
BEGIN = "<!-- metric table: begin -->\n"
END = "<!-- metric table: end -->\n"


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_public_functions_take_the_declared_options_and_defaults(name: str) -> None:
    function = FUNCTIONS[name]
    assert callable(getattr(_core, function.kernel))
    assert getattr(em, name) is function.scalar
    assert getattr(em, f"{name}_batch") is function.batch
    declared = function.defaults
    for public, extra in ((getattr(em, name), ()), (getattr(em, f"{name}_batch"), ("workers",))):
        params = inspect.signature(public).parameters
        keywords = {
            key: p.default
            for key, p in params.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and key not in ("max_chars", *extra)
        }
        assert list(keywords) == list(declared), public.__name__
        assert keywords == declared, public.__name__
        for key in extra:
            assert params[key].default is None, public.__name__
        assert public.__doc__, public.__name__


def test_a_name_that_is_a_function_name_fixes_no_option() -> None:
    for metric in METRICS.values():
        if metric.name in FUNCTIONS:
            assert metric.function.name == metric.name
            assert not metric.settings, metric.name
    assert len({(m.function.name, tuple(sorted(m.options.items()))) for m in METRICS.values()}) == (
        len(METRICS)
    ), "two names for one number"


def test_a_metric_refuses_an_option_its_function_lacks() -> None:
    with pytest.raises(TypeError, match="rouge_l has no option 'n'"):
        Metric("rouge_l_n", FUNCTIONS["rouge_l"], {"n": 2})
    with pytest.raises(ValueError, match="stemmer must be 'porter', got 'snowball'"):
        Metric("rouge_l_snow", FUNCTIONS["rouge_l"], {"stemmer": "snowball"})


def test_docs_hold_the_table_of_names() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert shown == metric_table_markdown(), (
        "regenerate the table in docs/metrics.md from "
        "evalmark.metrics._table.metric_table_markdown()"
    )


def test_the_scale_guide_lists_every_name_in_order() -> None:
    (row,) = [
        line
        for line in SCALE.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `--metrics` |")
    ]
    listed = [part.split("`")[1] for part in row.split("):", 1)[1].split(";")[0].split(", ")]
    assert listed == list(METRICS)
