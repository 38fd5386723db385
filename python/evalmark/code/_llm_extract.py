"""Code extraction by a model: ``extract="llm"``.

For replies whose code is not fenced, or is spread over prose, a chat model is asked to copy the
code out verbatim. The call goes through the model like any judge call, so a cassette records it
once and replays it offline. The model answers with the code alone, or with the word ``NONE``
when the reply holds no code; a fenced answer is unwrapped.
"""

from __future__ import annotations

from evalmark.code._extract import Extraction, markdown_blocks
from evalmark.models._protocols import ChatModel

__all__ = ["EXTRACTION_PROMPT", "NO_CODE", "llm_extract"]

NO_CODE = "NONE"

EXTRACTION_PROMPT = """You copy source code out of an assistant's reply so that it can be run.

Return the {language} code of the reply below, exactly as written: keep every line, its
indentation and its order, and change nothing. Leave out the prose around it, and any example
output or shell commands that are not part of the program. When the code comes in several
pieces, return them in order, separated by one blank line. When the reply holds no code at all,
answer with the single word {no_code}.

Answer with the code only: no explanation, no Markdown fence.

<reply>
{reply}
</reply>"""


def llm_extract(text: str, model: ChatModel, *, language: str | None = None) -> Extraction:
    """The code of ``text`` as ``model`` copies it out (temperature 0)."""
    if not text.strip():
        return Extraction(None, "the output is empty")
    prompt = EXTRACTION_PROMPT.format(language=language or "program", no_code=NO_CODE, reply=text)
    reply = model.chat([{"role": "user", "content": prompt}], temperature=0).text
    answer = reply.strip()
    if not answer or answer.strip(".").upper() == NO_CODE:
        return Extraction(None, f"the extraction model {model.model_id!r} found no code")
    blocks = markdown_blocks(answer)
    if blocks and answer.lstrip().startswith(("```", "~~~")):
        code = "\n".join(block.code for block in blocks)
    else:
        code = answer + "\n"
    if not code.strip():
        return Extraction(None, f"the extraction model {model.model_id!r} returned an empty block")
    return Extraction(code, language=language or "")
