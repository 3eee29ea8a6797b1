"""A scripted LLM server on 127.0.0.1 that speaks the OpenAI chat completions and the Anthropic
messages wire formats, for testing model pipelines through the real SDK clients, offline.

::

    from factdiff.testing import Answer, ScriptedLLMServer

    with ScriptedLLMServer([Answer.rate_limited(0), Answer.json({"customer_id": None})]) as s:
        client = openai.OpenAI(base_url=s.openai_url, api_key="test", max_retries=0)
        ...
        assert s.request_count == 2

Each request takes the next ``Answer`` of the script; when the script is empty, the
``responder`` (a function of the ``RecordedRequest``) answers, else a 500 says the script ran
out. ``Answer.json`` is structured output (OpenAI: the message content; Anthropic: the forced
tool's input); ``Answer.text`` plain text; the other constructors are failures: statuses with
provider-shaped bodies, a dropped connection, a slow trickle, truncation, refusal. Every answer
may wait ``delay_s`` first (fixed latency). Requests are recorded in ``requests``, and
``max_in_flight`` is the most requests answered at once (how much the clients overlapped).

``rejects`` names the structured-output forms the server refuses, as real servers do:
``json_schema`` or ``json_object`` (a ``response_format`` type; refused like
llama-cpp-python's server does, a 500 whose message is the request validation error) and
``tools`` (an Anthropic forced tool, a 400). A refused request is recorded but takes no
answer from the script. ``GET /v1/models`` lists ``models``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

from factdiff.inputs.json_toml import JSON
from factdiff.testing.llm_script import Answer, RecordedRequest

__all__ = ["Answer", "RecordedRequest", "ScriptedLLMServer"]

Responder = Callable[[RecordedRequest], Answer]


class ScriptedLLMServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering from a script."""

    def __init__(
        self,
        script: Iterable[Answer] = (),
        *,
        responder: Responder | None = None,
        model_echo: bool = True,
        rejects: Collection[str] = (),
        models: Iterable[str] = (),
    ) -> None:
        self._script: deque[Answer] = deque(script)
        self.responder = responder
        self.model_echo = model_echo
        self.rejects = frozenset(rejects)
        """Structured-output forms refused: ``json_schema``, ``json_object``, ``tools``."""
        self.models = tuple(models)
        """The model ids ``GET /v1/models`` lists."""
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._counter = 0
        self._in_flight = 0
        self.max_in_flight = 0
        """The most requests being answered at once so far (observed overlap)."""
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (slow answers in progress stop too) and close the socket."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses and counters ---------------------------------------------------------
    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def openai_url(self) -> str:
        """``base_url`` for the openai SDK."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        """``base_url`` for the anthropic SDK."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def request_count(self) -> int:
        """Requests received so far (dropped and failed ones included)."""
        with self._lock:
            return len(self.requests)

    def push(self, *answers: Answer) -> None:
        """Append answers to the script."""
        with self._lock:
            self._script.extend(answers)

    def reset(self) -> None:
        """Forget recorded requests (the script stays)."""
        with self._lock:
            self.requests.clear()

    # -- internals ----------------------------------------------------------------------
    def _refusal(self, request: RecordedRequest) -> Answer | None:
        """The error for a structured-output form this server refuses, if the request uses
        one."""
        if request.provider == "anthropic":
            if "tools" in self.rejects and "tools" in request.body:
                return Answer.error(
                    400, "invalid_request_error", "tools: tool use is not supported"
                )
            return None
        response_format = request.body.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind not in self.rejects:
            return None
        detail = (
            "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}'}}]"
        )
        return Answer.error(500, "internal_server_error", detail)

    def _next(self, request: RecordedRequest) -> Answer:
        refused = self._refusal(request)
        with self._lock:
            self.requests.append(request)
            self._counter += 1
            if refused is not None:
                return refused
            if self._script:
                return self._script.popleft()
        if self.responder is not None:
            return self.responder(request)
        return Answer.error(500, "api_error", "the test script has no answer left")

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _sleep(self, seconds: float) -> bool:
        """Wait; False when the server is stopping."""
        return not self._stop.wait(seconds) if seconds > 0 else not self._stop.is_set()

    def _next_id(self) -> int:
        with self._lock:
            return self._counter


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024  # many clients connect at once (the default backlog is 5)
    owner: ScriptedLLMServer


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        """No Nagle delay: headers and body go out as written (as a real API's would), not
        40 ms apart waiting for the client's delayed ACK."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            listed = [
                {"id": name, "object": "model", "type": "model", "owned_by": "scripted"}
                for name in self.server.owner.models
            ]
            self._send(200, json.dumps({"object": "list", "data": listed}).encode(), {})
            return
        self._send(404, b'{"error": {"message": "not found", "type": "not_found_error"}}', {})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        provider: Literal["openai", "anthropic"] = (
            "anthropic" if self.path.rstrip("/").endswith("/messages") else "openai"
        )
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(provider, self.path, body, headers)
        owner = self.server.owner
        owner._enter()
        try:
            answer = owner._next(request)
            if not owner._sleep(answer.delay_s):
                self.close_connection = True
                return
            try:
                self._answer(request, answer)
            except OSError:  # the client went away (broken pipe, reset, timeout)
                self.close_connection = True
        finally:
            owner._leave()

    def _answer(self, request: RecordedRequest, answer: Answer) -> None:
        if answer.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if answer.kind == "status":
            self._send(answer.status, self._error_body(request, answer), answer.headers)
            return
        if answer.kind == "trickle":
            self._trickle(answer)
            return
        body = (
            self._openai_body(request, answer)
            if request.provider == "openai"
            else self._anthropic_body(request, answer)
        )
        self._send(200, body, answer.headers)

    def _send(self, status: int, body: bytes, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _trickle(self, answer: Answer) -> None:
        body = str(answer.payload).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        owner = self.server.owner
        for index in range(len(body)):
            if not owner._sleep(answer.trickle_interval_s):
                break
            self.wfile.write(body[index : index + 1])
            self.wfile.flush()
        self.close_connection = True

    @staticmethod
    def _error_body(request: RecordedRequest, answer: Answer) -> bytes:
        if request.provider == "anthropic":
            error: dict[str, JSON] = {
                "type": "error",
                "error": {"type": answer.error_type, "message": answer.payload},
            }
        else:
            error = {
                "error": {
                    "message": answer.payload,
                    "type": answer.error_type,
                    "param": None,
                    "code": answer.error_code,
                }
            }
        return json.dumps(error).encode()

    def _usage(self, request: RecordedRequest, answer: Answer, output: str) -> tuple[int, int]:
        tokens_in = answer.tokens_in
        if tokens_in is None:
            tokens_in = _estimate_tokens(json.dumps(request.body))
        tokens_out = answer.tokens_out
        if tokens_out is None:
            tokens_out = _estimate_tokens(output)
        return tokens_in, tokens_out

    def _openai_body(self, request: RecordedRequest, answer: Answer) -> bytes:
        content: str | None
        refusal: str | None = None
        finish = "stop"
        if answer.kind == "json":
            content = json.dumps(answer.payload)
        elif answer.kind == "refusal":
            content, refusal = None, str(answer.payload)
        else:
            content = str(answer.payload)
            if answer.kind == "truncated":
                finish = "length"
        tokens_in, tokens_out = self._usage(request, answer, content or refusal or "")
        model = request.body.get("model", "scripted")
        data = {
            "id": f"chatcmpl-{self.server.owner._next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                    "finish_reason": finish,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }
        return json.dumps(data).encode()

    def _anthropic_body(self, request: RecordedRequest, answer: Answer) -> bytes:
        tool = None
        choice = request.body.get("tool_choice")
        if isinstance(choice, dict):
            tool = choice.get("name")
        stop = "end_turn"
        raw_input: str | None = None
        text = ""
        if answer.kind in ("json", "raw_json") and tool:
            raw_input = json.dumps(answer.payload) if answer.kind == "json" else str(answer.payload)
            stop = "tool_use"
        elif answer.kind == "json":
            text = json.dumps(answer.payload)
        elif answer.kind == "refusal":
            text, stop = str(answer.payload), "refusal"
        elif answer.kind == "truncated":
            text, stop = str(answer.payload), "max_tokens"
        else:
            text = str(answer.payload)
        tokens_in, tokens_out = self._usage(request, answer, raw_input or text)
        placeholder = "__FACTDIFF_TOOL_INPUT__"
        content: list[JSON] = []
        if raw_input is not None:
            content.append(
                {"type": "tool_use", "id": "toolu_1", "name": tool, "input": placeholder}
            )
        else:
            content.append({"type": "text", "text": text})
        data = {
            "id": f"msg_{self.server.owner._next_id()}",
            "type": "message",
            "role": "assistant",
            "model": request.body.get("model", "scripted"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
        encoded = json.dumps(data)
        if raw_input is not None:
            encoded = encoded.replace(json.dumps(placeholder), raw_input, 1)
        return encoded.encode()
