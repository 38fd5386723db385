"""The judge's structured-output modes against a small OpenAI-compatible server on 127.0.0.1,
through the real ``openai`` client and evalmark's adapter: native, prompted, auto, and a server
that rejects ``response_format`` json_schema."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from evalmark import Sample, Scorer  # noqa: E402
from evalmark.models import RuleJudge, openai_chat, record_replay  # noqa: E402
from evalmark.models._modes import MODE_ENV  # noqa: E402
from evalmark.report import report_document  # noqa: E402
from evalmark.strategies._llm_judge import LLMJudge  # noqa: E402

LIFETIME = 60.0  # seconds: the server stops by itself after this, whatever the test does

SAMPLES = [
    Sample(
        name=f"refund-{n}",
        parameters=[f"How long is the refund window for plan {n}?"],
        expected_output="The refund window is 30 days.",
    )
    for n in range(3)
]


class _Handler(BaseHTTPRequestHandler):
    server: _JudgeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append(body)
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        native = body.get("response_format", {}).get("type") == "json_schema"
        if native and self.server.rejects_json_schema:
            self._send(
                400,
                {
                    "error": {
                        "message": "response_format of type json_schema is not supported by "
                        "this server",
                        "type": "invalid_request_error",
                        "param": "response_format",
                        "code": None,
                    }
                },
            )
            return
        params = {"response_format": body["response_format"]} if native else {}
        answer = RuleJudge().chat(body["messages"], **params).text
        if self.server.broken:
            answer = "I looked at it carefully and it seems fine."
        elif not native:  # an unconstrained model chats around its JSON
            answer = f"Let me weigh this.\n```json\n{answer}\n```\nThat is my judgment {{ok}}."
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )


class _JudgeServer(ThreadingHTTPServer):
    requests: list[dict[str, Any]]
    rejects_json_schema: bool
    broken: bool
    lock: threading.Lock

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def modes(self) -> list[str]:
        """For each request so far, native or prompted."""
        return ["native" if "response_format" in r else "prompted" for r in self.requests]


def _start(rejects: bool, broken: bool = False) -> _JudgeServer:
    httpd = _JudgeServer(("127.0.0.1", 0), _Handler)
    httpd.requests, httpd.rejects_json_schema, httpd.broken = [], rejects, broken
    httpd.lock = threading.Lock()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    stopper = threading.Timer(LIFETIME, httpd.shutdown)
    stopper.daemon = True
    stopper.start()
    httpd.stopper = stopper  # type: ignore[attr-defined]
    return httpd


def _stop(httpd: _JudgeServer) -> None:
    httpd.stopper.cancel()  # type: ignore[attr-defined]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def modern() -> Iterator[_JudgeServer]:
    httpd = _start(rejects=False)
    yield httpd
    _stop(httpd)


@pytest.fixture
def legacy() -> Iterator[_JudgeServer]:
    httpd = _start(rejects=True)
    yield httpd
    _stop(httpd)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _model(url: str) -> Any:
    client = openai.OpenAI(base_url=url, api_key="sk-test-judge-key", max_retries=0, timeout=10)
    return openai_chat(client, "judge-model", temperature=0)


def _run(model: Any, mode: str, concurrency: int | None = None) -> Any:
    strategy = LLMJudge("correctness", model, mode=mode)  # type: ignore[arg-type]
    answers = {s.parameters[0]: "Refunds: the window is 30 days." for s in SAMPLES}
    scorer = Scorer() if concurrency is None else Scorer(concurrency)
    return scorer.evaluate(SAMPLES, lambda question: answers[question], strategy)


def test_native_mode_sends_json_schema_and_reads_the_constrained_reply(
    modern: _JudgeServer,
) -> None:
    report = _run(_model(modern.url), "native")
    assert report.passed == 3 and report.errors == 0
    assert modern.modes() == ["native"] * 3
    sent = modern.requests[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert list(sent["json_schema"]["schema"]["properties"]) == ["reasoning", "score"]
    assert report.result("refund-0", "correctness").metadata["mode"] == "native"


def test_prompted_mode_recovers_the_json_from_a_chatty_fenced_reply(modern: _JudgeServer) -> None:
    report = _run(_model(modern.url), "prompted")
    assert report.passed == 3 and report.errors == 0
    assert modern.modes() == ["prompted"] * 3
    prompt = modern.requests[0]["messages"][-1]["content"]
    assert "<<<BEGIN RESPONSE_SCHEMA>>>" in prompt
    result = report.result("refund-1", "correctness")
    assert result.metadata["mode"] == "prompted"
    assert result.explanation.startswith("75% of the content words of the reference_outputs")


def test_auto_mode_uses_native_where_the_server_supports_it(modern: _JudgeServer) -> None:
    report = _run(_model(modern.url), "auto")
    assert report.passed == 3 and modern.modes() == ["native"] * 3


def test_auto_mode_falls_back_once_on_a_server_that_rejects_json_schema(
    legacy: _JudgeServer,
) -> None:
    # one call at a time, so that which call learns of the refusal first is fixed
    report = _run(_model(legacy.url), "auto", concurrency=1)
    assert report.passed == 3 and report.errors == 0
    # the first sample is refused natively, then every call is prompted
    assert legacy.modes() == ["native", "prompted", "prompted", "prompted"]
    assert {report.result(s.name, "correctness").metadata["mode"] for s in SAMPLES} == {"prompted"}


def test_native_mode_fails_on_a_server_that_rejects_json_schema(legacy: _JudgeServer) -> None:
    report = _run(_model(legacy.url), "native")
    assert report.errors == 3 and report.passed == 0
    result = report.result("refund-0", "correctness")
    assert result.error is not None and result.error.kind == "judge"
    assert result.error.type == "StructuredOutputError"
    assert "judge prompt 'correctness': the model server rejected structured output" in (
        result.explanation
    )
    assert "not supported by this server" in result.explanation
    assert legacy.modes() == ["native"] * 3


def test_the_prompted_server_reply_that_holds_no_json_is_a_parse_error() -> None:
    httpd = _start(rejects=False, broken=True)
    try:
        report = _run(_model(httpd.url), "prompted")
    finally:
        _stop(httpd)
    result = report.result("refund-2", "correctness")
    assert report.errors == 3 and result.error is not None and result.error.kind == "parse"
    assert "judge prompt 'correctness': the reply holds no JSON object; the reply was " in (
        result.explanation
    )


def test_an_auto_recording_against_the_old_server_replays_offline(
    legacy: _JudgeServer, tmp_path: Path
) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorder = record_replay(_model(legacy.url), cassette, mode="record-missing")
    recorded = _run(recorder, "auto", concurrency=1)  # one native refusal, then prompted
    assert recorded.passed == 3 and len(legacy.requests) == 4
    text = cassette.read_text()
    assert "sk-test-judge-key" not in text and len(text.splitlines()) == 1 + 3
    dead = "http://127.0.0.1:9/v1"  # the discard port: nothing answers there
    replayed = _run(record_replay(_model(dead), cassette, mode="replay"), "auto")
    assert report_document(replayed) == report_document(recorded)
    assert len(legacy.requests) == 4  # nothing reached the server
