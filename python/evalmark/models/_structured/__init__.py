"""Structured judge replies: the shape a judge is asked to answer in, how it is asked, and how
the answer is read back.

A judge answers with one JSON object. Its shape (:class:`ResponseSpec`) is one of

* ``bool``: ``{"reasoning": "...", "score": true}``;
* ``continuous``: ``"score"`` a number from 0 to 1;
* ``choices``: ``"score"`` one of a few numbers (``[0, 0.5, 1]``);
* ``schema``: any JSON Schema (a classifier: ``{"reasoning": "...", "language": "fr"}``).

With reasoning on, ``reasoning`` comes first, so the model writes its reasons before it
commits to a score. The shape reaches the model in one of two ways (the judge's *mode*):
``native``, as an OpenAI-compatible ``response_format`` of type ``json_schema``, or
``prompted``, as the JSON Schema written into the prompt. ``auto`` tries native and falls
back to prompted when the server says it does not support it.

Reading a reply (:meth:`ResponseSpec.read`) recovers the JSON object from chatty or fenced
text (:func:`json_objects`: a brace-balanced scan that ignores braces inside string literals)
and checks it. An empty reply, no JSON, a field missing or of the wrong type, a score out of
range or not among the choices, a schema violation: each is a
:class:`~evalmark.errors.JudgeReplyError` naming the prompt and quoting the reply.
"""

from evalmark.models._structured.json_scan import json_object_texts, json_objects
from evalmark.models._structured.modes import (
    MODES,
    Mode,
    StructuredCaller,
    rejects_structured_output,
)
from evalmark.models._structured.schema import check_output_schema, schema_violation
from evalmark.models._structured.shape import (
    REASONING_KEY,
    SCORE_KEY,
    ParsedReply,
    ResponseSpec,
    ScoreKind,
)

__all__ = [
    "MODES",
    "REASONING_KEY",
    "SCORE_KEY",
    "Mode",
    "ParsedReply",
    "ResponseSpec",
    "ScoreKind",
    "StructuredCaller",
    "check_output_schema",
    "json_object_texts",
    "json_objects",
    "rejects_structured_output",
    "schema_violation",
]
