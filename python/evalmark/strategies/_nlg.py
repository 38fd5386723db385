"""GLEU and METEOR strategies over the batch kernels (equal to NLTK's; scores in [0, 1]).

Each scores the output against the expected outputs (all of them, as references) with the
function of the same name in :mod:`evalmark.metrics`, takes that function's options, and passes
at ``threshold``, like :class:`~evalmark.strategies._metric.RougeL`.
"""

from __future__ import annotations

from evalmark.metrics._table import FUNCTIONS
from evalmark.strategies._metric import MetricStrategy

__all__ = ["Gleu", "Meteor"]


class Gleu(MetricStrategy):
    """Sentence GLEU over whitespace tokens, as NLTK's ``sentence_gleu``."""

    label = "GLEU"
    function = FUNCTIONS["gleu"]


class Meteor(MetricStrategy):
    """METEOR over whitespace tokens, exact and Porter-stem matches, as NLTK's
    ``meteor_score`` without WordNet synonyms."""

    label = "METEOR"
    function = FUNCTIONS["meteor"]
