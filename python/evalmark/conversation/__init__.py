"""Conversations: simulate a multi-turn exchange with the application and score it.

:func:`evalmark.simulate` (and :func:`evalmark.asimulate`) plays a
:class:`evalmark.SimulatedUser` against ``app(message, thread_id)``;
:func:`evalmark.score_conversations` turns the simulations into a report with per-turn,
whole-conversation and trajectory checks (:class:`ConversationCase`). The package sits just
above the engine and runs in it: the conversations are played through the engine run's
scheduling (``Run.each``: limit, threads, progress, repeats) and every check through its
``Run.column``, as a sample run's checks are.
"""

from evalmark.conversation._report import ascore_conversations
from evalmark.conversation._scoring import ConversationCase
from evalmark.conversation._simulate import Simulation, simulate_many
from evalmark.conversation._users import ScriptedTurn

__all__ = [
    "ConversationCase",
    "ScriptedTurn",
    "Simulation",
    "ascore_conversations",
    "simulate_many",
]
