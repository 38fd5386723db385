"""OpenAI-compatible adapters, driven by the real ``openai`` package against a loopback server."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

openai = pytest.importorskip("openai")

from evalmark.errors import CassetteMiss  # noqa: E402
from evalmark.models import ChatToolCall, openai_chat, openai_embedding, record_replay  # noqa: E402
from evalmark.models._modes import MODE_ENV  # noqa: E402

VECTORS = {"alpha": [0.1, 0.2, 0.3], "beta": [1e-40, -0.5, 1.0 / 3.0]}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if self.path.endswith("/chat/completions"):
            answer = self._chat(body)
        elif self.path.endswith("/embeddings"):
            answer = {
                "object": "list",
                "model": body["model"],
                "data": [
                    {"object": "embedding", "index": i, "embedding": VECTORS[text]}
                    for i, text in reversed(list(enumerate(body["input"])))
                ],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        else:
            self.send_error(404)
            return
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        question = body["messages"][-1]["content"]
        message: dict[str, Any] = {"role": "assistant", "content": f"echo: {question}"}
        if question == "which headers?":
            _, headers, _ = self.server.seen[-1]
            shown = {k: headers.get(k) for k in ("authorization", "api-key", "x-custom-auth")}
            message["content"] = f"you sent {json.dumps(shown)} and {json.dumps(body)}"
        if question == "refuse":
            message = {"role": "assistant", "content": None, "refusal": "I won't."}
        if body.get("tools"):
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": "x"}'},
                    }
                ],
            }
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        }


class _Server(ThreadingHTTPServer):
    seen: list[tuple[str, dict[str, str], dict[str, Any]]]


@pytest.fixture
def server() -> Iterator[_Server]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.seen = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=30)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _url(server: _Server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


DEAD_URL = "http://127.0.0.1:9/v1"  # the discard port: nothing answers there


def test_chat_records_through_the_openai_client_and_replays_offline(
    server: _Server, tmp_path: Path
) -> None:
    cassette = tmp_path / "chat.jsonl"
    question = [{"role": "user", "content": "hello"}]
    with openai.OpenAI(
        base_url=_url(server), api_key="sk-test-not-a-real-key-000", max_retries=0
    ) as client:
        live = openai_chat(client, "local-model", temperature=0)
        recorder = record_replay(live, cassette, mode="record-missing")
        reply = recorder.chat(question, max_tokens=20)
    assert reply.text == "echo: hello"
    assert reply.usage is not None and reply.usage.total_tokens == 7
    assert reply.finish_reason == "stop"
    path, headers, body = server.seen[0]
    assert path == "/v1/chat/completions"
    assert body == {
        "model": "local-model",
        "messages": question,
        "temperature": 0,
        "max_tokens": 20,
    }
    assert headers["authorization"].startswith("Bearer sk-test")
    assert "sk-test" not in cassette.read_text("utf-8")

    with openai.OpenAI(base_url=DEAD_URL, api_key="other", max_retries=0) as offline:
        replayer = record_replay(openai_chat(offline, "local-model", temperature=0), cassette)
        assert replayer.chat(question, max_tokens=20) == reply
        with pytest.raises(CassetteMiss):
            replayer.chat(question, max_tokens=21)
    assert len(server.seen) == 1


def test_tool_calls_round_trip(server: _Server, tmp_path: Path) -> None:
    cassette = tmp_path / "tools.jsonl"
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    with openai.OpenAI(base_url=_url(server), api_key="k", max_retries=0) as client:
        recorder = record_replay(openai_chat(client, "m"), cassette, mode="record-missing")
        reply = recorder.chat([{"role": "user", "content": "look"}], tools=tools)
    assert reply.tool_calls == (ChatToolCall(id="call_1", name="lookup", arguments='{"q": "x"}'),)
    assert reply.text == ""
    with openai.OpenAI(base_url=DEAD_URL, api_key="k", max_retries=0) as offline:
        replayed = record_replay(openai_chat(offline, "m"), cassette)
        assert replayed.chat([{"role": "user", "content": "look"}], tools=tools) == reply


def test_async_client_records_and_replays(server: _Server, tmp_path: Path) -> None:
    cassette = tmp_path / "async.jsonl"

    async def run(url: str, mode: str) -> str:
        async with openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0) as client:
            model = record_replay(openai_chat(client, "m"), cassette, mode=mode)
            return (await model.achat([{"role": "user", "content": "async"}])).text

    assert asyncio.run(run(_url(server), "record-missing")) == "echo: async"
    assert asyncio.run(run(DEAD_URL, "replay")) == "echo: async"
    assert len(server.seen) == 1


def test_embeddings_record_in_input_order_and_replay_bit_exact(
    server: _Server, tmp_path: Path
) -> None:
    cassette = tmp_path / "emb.jsonl"
    with openai.OpenAI(base_url=_url(server), api_key="k", max_retries=0) as client:
        live = openai_embedding(client, "embed-small")
        direct = live.embed(["alpha", "beta"])
        recorder = record_replay(live, cassette, mode="record-missing")
        recorded = recorder.embed(["beta", "alpha"])
    expected = np.array([VECTORS["alpha"], VECTORS["beta"]], dtype=np.float32)
    assert direct.tobytes() == expected.tobytes()
    assert recorded.tobytes() == expected[::-1].tobytes()
    with openai.OpenAI(base_url=DEAD_URL, api_key="k", max_retries=0) as offline:
        replayer = record_replay(openai_embedding(offline, "embed-small"), cassette)
        assert replayer.embed(["alpha", "beta"]).tobytes() == expected.tobytes()
    assert len(server.seen) == 2


def test_a_provider_refusal_is_not_recorded(server: _Server, tmp_path: Path) -> None:
    cassette = tmp_path / "refusal.jsonl"
    with openai.OpenAI(base_url=_url(server), api_key="k", max_retries=0) as client:
        recorder = record_replay(openai_chat(client, "m"), cassette, mode="record-missing")
        reply = recorder.chat([{"role": "user", "content": "refuse"}])
    assert reply.refusal == "I won't." and reply.refused and reply.text == ""
    assert not cassette.exists()


def test_keys_of_unknown_formats_never_reach_the_cassette_through_the_real_client(
    server: _Server, tmp_path: Path
) -> None:
    cassette = tmp_path / "secrets.jsonl"
    api_key = "sk-proj-Zt7Yb2Xc9Wd4Ve6Uf1Tg8Sh3Ri5Qj0Pk"
    header_key = "acme-3f9a1c77e2b84d0b9c6e5a4f"
    extra_key = "gw_71c0ffee5ca1ab1e0ddba11"
    with openai.OpenAI(
        base_url=_url(server),
        api_key=api_key,
        default_headers={"x-custom-auth": header_key},
        max_retries=0,
    ) as client:
        live = openai_chat(client, "local-model", extra_headers={"api-key": extra_key})
        recorder = record_replay(live, cassette, mode="record-missing")
        told = recorder.chat([{"role": "user", "content": "which headers?"}])
        echoed = recorder.chat(
            [{"role": "user", "content": f"keys {api_key.removeprefix('sk-')} {header_key}"}],
            extra_body={"api_key": extra_key},
        )
    _, headers, body = server.seen[0]
    assert headers["authorization"] == f"Bearer {api_key}" and headers["api-key"] == extra_key
    assert body["messages"][0]["content"] == "which headers?"
    text = cassette.read_text("utf-8")
    for secret in (api_key, api_key.removeprefix("sk-"), header_key, extra_key):
        assert secret not in text and secret not in told.text and secret not in echoed.text
    assert '"redacted":[' in text and "[REDACTED]" in told.text
