"""``evalmark.ray``: the public name of :mod:`evalmark.scoring._ray` (``evalmark[ray]``)."""

from evalmark.scoring._ray import *  # noqa: F403
from evalmark.scoring._ray import __all__ as __all__
