"""The HTTP server: POST /v1/responses (Codex), POST /v1/messages (Claude Code) and POST
/v1beta/models/<model>:(stream)generateContent (Gemini CLI) play the next scripted step of the
requesting thread; one behaviour library serves every protocol at once."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import shlex
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from evaluator.modelserver import anthropic, gemini
from evaluator.modelserver.behaviors import Behavior, BehaviorLibrary, Step, next_step
from evaluator.modelserver.protocol import ThreadView, read_thread, response_stream
from evaluator.prompting import extract_launcher_payload

LAUNCHER_BEHAVIOR = "subagent-launcher"
STOP_POLL_S = 0.05  # how soon a stopped server notices (see start)
# Codex's hosted web search: a `call` of this name is streamed as the service's own item.
WEB_SEARCH_TOOL = "web_search"
WEB_SEARCH_ITEM = "web_search_call"


@dataclass
class RequestRecord:
    """One request as the server saw it; `error` is set when it refused to answer."""

    at: float
    thread_id: str | None
    is_child: bool
    behavior: str | None
    step: int
    action: str | None
    error: str | None = None
    # Which key the client sent (a fingerprint, never the key): proves a real credential took
    # the path a real provider's would, without the server's log holding it.
    credential: str | None = None


def credential_fingerprint(headers: dict[str, str]) -> str | None:
    """`sha256:<12 hex>` of the bearer token or `x-api-key` the request carried, or None."""
    value = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
    if not value:
        return None
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:12]


class ScriptedModelServer:
    """A loopback Responses-API server; use as a context manager or call start()/stop()."""

    def __init__(
        self,
        library: BehaviorLibrary,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        log_path: Path | None = None,
        model: str = "mock-model",
        draw_salt: str = "",
        case_folders: Mapping[str, str] | None = None,
    ) -> None:
        if not host.startswith("127.") and host not in ("localhost", "::1"):
            raise ValueError("the scripted model server only listens on loopback addresses")
        self.library = library
        self.latency_s = latency_s
        self.log_path = log_path
        self.model = model
        # Seeds `chance` draws with the attempt: one server per run, so one pattern per salt.
        self.draw_salt = draw_salt
        # The run's attempt folders (`workspace/naming.py`: a digest per case) by case id: a
        # draw is seeded by `<case_id>/attempt-NN` whatever the folders are called.
        self.case_folders = dict(case_folders or {})
        self.records: list[RequestRecord] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedModelServer:
        # stop() waits until the serving loop next checks for shutdown: socketserver's default
        # poll interval of 0.5 s was half a second at the end of every run and server test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": STOP_POLL_S}, daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop_quietly(self) -> None:
        """Closes the socket after serve_forever() returned in this thread (Ctrl-C)."""
        self._httpd.server_close()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def errors(self) -> list[RequestRecord]:
        with self._lock:
            return [r for r in self.records if r.error]

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self.records.append(record)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(asdict(record)) + "\n")

    def answer(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
        """Returns (HTTP status, body, content type) for one /responses request."""
        view = read_thread(body, headers)
        step, error = self._play(view, credential_fingerprint(headers))
        if error or step is None:
            return 400, _error_body(error or "no step"), "application/json"
        if step.http_error is not None:
            return (
                step.http_error,
                _error_body(f"scripted HTTP {step.http_error}"),
                "application/json",
            )
        items = [self._render(step, view)]
        # A hosted web search is the service's own turn: the CLI answers nothing and asks for
        # no more, so the step after it goes out in the same response.
        while items[-1]["type"] == WEB_SEARCH_ITEM:
            view.calls.append(items[-1])
            step, error = self._play(view, credential_fingerprint(headers))
            if error or step is None or step.http_error is not None:
                message = error or "a web search must be followed by a step with a reply"
                return 400, _error_body(message), "application/json"
            items.append(self._render(step, view))
        response_id = f"resp_{next(self._ids)}"
        size = len(json.dumps(body.get("input") or []))
        return 200, response_stream(response_id, items, size), "text/event-stream"

    def answer_messages(
        self, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[int, bytes, str]:
        """Returns (HTTP status, body, content type) for one Anthropic /messages request."""
        view = anthropic.read_messages_thread(body, headers)
        step, error = self._play(view, credential_fingerprint(headers))
        if step is not None and step.wait is not None:
            error = "`wait` has no Claude Code turn: the Agent tool waits for its sub-agent"
        if error or step is None:
            return 400, anthropic.error_body(error or "no step"), "application/json"
        if step.http_error is not None:
            kind = "api_error" if step.http_error >= 500 else "invalid_request_error"
            body_bytes = anthropic.error_body(f"scripted HTTP {step.http_error}", kind)
            return step.http_error, body_bytes, "application/json"
        number = next(self._ids)
        prefix = f"toolu_{(view.thread_id or 'x')[-8:].replace('-', '')}_{number}"
        stream = anthropic.messages_stream(
            f"msg_{number}",
            str(body.get("model") or self.model),
            anthropic.step_blocks(step, anthropic.offered_tools(body)),
            len(json.dumps(body.get("messages") or [])),
            prefix,
        )
        return 200, stream, "text/event-stream"

    def _draw_key(self, attempt_key: str) -> str:
        """What seeds a `chance` draw: the attempt as `<case_id>/attempt-NN` (the case's folder
        named by the run), and the run's salt."""
        folder, _, number = attempt_key.partition("/")
        if folder in self.case_folders and number.isdigit():
            attempt_key = f"{self.case_folders[folder]}/attempt-{int(number):02d}"
        return f"{self.draw_salt}|{attempt_key}" if self.draw_salt else attempt_key

    def _play(
        self, view: ThreadView, credential: str | None = None
    ) -> tuple[Step | None, str | None]:
        """The thread's next step (after its delay), or why there is none; logged either way."""
        behavior, error = self._choose(view)
        step = (
            next_step(
                behavior.steps,
                view.call_outputs(),
                self._draw_key(view.attempt_key),
                behavior.seed,
                view.context,
            )
            if behavior
            else None
        )
        if behavior is not None and step is None:
            error = (
                f"behaviour {behavior.name!r} has no step {view.step_index + 1}"
                " on the path its branches took"
            )
        record = RequestRecord(
            at=time.time(),
            thread_id=view.thread_id,
            is_child=view.is_child,
            behavior=behavior.name if behavior else None,
            step=view.step_index + 1,
            action=step.action if step else None,
            error=error,
            credential=credential,
        )
        self._record(record)
        if error or step is None:
            return None, error or "no step"
        delay = self.latency_s + step.delay_s
        if delay:
            time.sleep(delay)
        return step, None

    def _choose(self, view: ThreadView) -> tuple[Behavior | None, str | None]:
        if view.prompt is None:
            return None, "request carries no user prompt"
        payload = extract_launcher_payload(view.prompt)
        if payload is not None and not view.is_child:
            return _launcher_behavior(payload, view.agent), None
        selection = self.library.select(view.prompt, view.is_child, view.agent)
        return selection.behavior, selection.error

    def _render(self, step: Step, view: ThreadView) -> dict[str, Any]:
        call_id = f"call_{(view.thread_id or 'x')[-8:]}_{view.step_index + 1}"
        if step.cmd is not None:
            args: dict[str, Any] = {"cmd": _fill(step.cmd, view)}
            if step.workdir is not None:
                args["workdir"] = step.workdir
            if step.yield_time_ms is not None:
                args["yield_time_ms"] = step.yield_time_ms
            return _function_call(call_id, "exec_command", args)
        if step.patch is not None:
            return _patch_call(call_id, step.patch)
        if step.read is not None:
            return _function_call(
                call_id, "exec_command", {"cmd": f"cat -- {shlex.quote(step.read)}"}
            )
        if step.skill is not None:
            skill_md = f".agents/skills/{step.skill}/SKILL.md"
            return _function_call(
                call_id, "exec_command", {"cmd": f"cat -- {shlex.quote(skill_md)}"}
            )
        if step.write is not None:
            added = "".join(f"+{line}\n" for line in step.write.content.splitlines())
            patch = f"*** Begin Patch\n*** Add File: {step.write.path}\n{added}*** End Patch\n"
            return _patch_call(call_id, patch)
        if step.edit is not None:
            removed = "".join(f"-{line}\n" for line in step.edit.old.splitlines())
            added = "".join(f"+{line}\n" for line in step.edit.new.splitlines())
            patch = (
                f"*** Begin Patch\n*** Update File: {step.edit.path}\n@@\n{removed}{added}"
                "*** End Patch\n"
            )
            return _patch_call(call_id, patch)
        if step.glob is not None:
            where = shlex.quote(step.glob.path or ".")
            cmd = f"find {where} -name {shlex.quote(step.glob.pattern)}"
            return _function_call(call_id, "exec_command", {"cmd": cmd})
        if step.grep is not None:
            where = shlex.quote(step.grep.path or ".")
            cmd = f"grep -rn -e {shlex.quote(step.grep.pattern)} {where}"
            return _function_call(call_id, "exec_command", {"cmd": cmd})
        if step.call is not None and step.call.name == WEB_SEARCH_TOOL:
            # Codex's web search, which the service runs: the item it streams, `args.action`
            # as given (`search` with a `query`, `open_page` or `find_in_page` with a `url`).
            action = step.call.args.get("action", {})
            return {
                "type": WEB_SEARCH_ITEM,
                "id": f"ws_{call_id}",
                "status": "completed",
                "action": action,
            }
        if step.call is not None:
            return _function_call(call_id, step.call.name, step.call.args)
        if step.spawn is not None:
            args = {"message": step.spawn.message, "fork_context": step.spawn.fork_context}
            return _function_call(call_id, "spawn_agent", args, namespace="multi_agent_v1")
        if step.wait is not None:
            targets = view.spawned_agent_ids()[-1:]
            args = {"targets": targets, "timeout_ms": step.wait.timeout_ms}
            return _function_call(call_id, "wait_agent", args, namespace="multi_agent_v1")
        text = json.dumps(step.final_json) if step.final_json is not None else step.final or ""
        text = _fill(text, view)
        return {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{call_id}",
            "phase": "final_answer",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }


def _fill(text: str, view: ThreadView) -> str:
    """`{{spawned.nickname}}` and `{{spawned.agent_id}}`: what the thread's last spawn returned,
    so a scripted evaluator agent can name the sub-agent it spawned, as a real one would."""
    spawns = view.spawn_results()
    last = spawns[-1] if spawns else {}
    for key in ("nickname", "agent_id"):
        text = text.replace(f"{{{{spawned.{key}}}}}", str(last.get(key, "")))
    return text


def _function_call(
    call_id: str, name: str, args: dict[str, Any], namespace: str | None = None
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(args),
        "call_id": call_id,
        "id": f"fc_{call_id}",
    }
    if namespace:
        item["namespace"] = namespace
    return item


def _patch_call(call_id: str, patch: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "name": "apply_patch",
        "input": patch,
        "call_id": call_id,
        "status": "completed",
    }


def _launcher_behavior(child_prompt: str, agent: str) -> Behavior:
    # Codex spawns and then waits; Claude Code's Agent tool returns when the sub-agent is done.
    wait: list[dict[str, Any]] = [{"wait": {}}] if agent == "codex" else []
    return Behavior.model_validate(
        {
            "name": LAUNCHER_BEHAVIOR,
            "match": {"prompt_equals": child_prompt, "thread": "root"},
            "steps": [
                {"spawn": {"message": child_prompt, "fork_context": False}},
                *wait,
                {"final": "The sub-agent finished."},
            ],
        }
    )


def _error_body(message: str) -> bytes:
    return json.dumps(
        {
            "error": {
                "message": f"agentic-eval scripted model: {message}",
                "type": "invalid_request_error",
            }
        }
    ).encode()


def _make_handler(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def do_GET(self) -> None:
            if self.headers.get("Upgrade", "").lower() == "websocket":
                # The server speaks HTTP only. 426 tells a client that tries a WebSocket first
                # (Codex's built-in OpenAI provider) to use HTTP at once; any other answer made
                # it retry five times, about 6 s, before it fell back.
                body = _error_body("this server answers over HTTP only, not a WebSocket")
                self._send(426, body, "application/json")
                return
            models = [{"id": server.model, "object": "model", "owned_by": "agentic-eval"}]
            body = json.dumps({"object": "list", "data": models, "models": []}).encode()
            self._send(200, body, "application/json")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            # Claude Code adds `?beta=true` to its Messages-API path.
            endpoint = self.path.split("?", 1)[0].rstrip("/")
            if endpoint.endswith("/responses"):
                answer = server.answer
            elif endpoint.endswith("/messages"):
                answer = server.answer_messages
            elif endpoint.endswith((":generateContent", ":streamGenerateContent")):
                answer = functools.partial(gemini.answer, server._play, server.model, path=endpoint)
            else:
                self._send(404, _error_body(f"unknown endpoint {self.path}"), "application/json")
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send(400, _error_body("request body is not JSON"), "application/json")
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, payload, content_type = answer(body, headers)
            self._send(status, payload, content_type)

        def do_HEAD(self) -> None:
            # Claude Code may preconnect with `HEAD /`.
            self._send(200, b"", "text/plain")

    return Handler
