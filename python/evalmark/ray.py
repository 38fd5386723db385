"""``evalmark.ray``: the public name of :mod:`evalmark.scoring.ray` (``evalmark[ray]``)."""

from evalmark.scoring.ray import *  # noqa: F403
from evalmark.scoring.ray import __all__ as __all__
