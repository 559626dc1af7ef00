"""The key broker (evaluator/agents/key_proxy.py): the agent holds a placeholder, the loopback
proxy puts the real key on each request to its one upstream, relays a stream as it arrives,
refuses any other host, and leaves no socket or thread behind (red team 16: a key in the agent's
environment leaks reversed, hex-encoded or in halves)."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from evaluator.adapters.claude.runner import ClaudeCodeRunner
from evaluator.adapters.gemini.runner import GeminiCliRunner
from evaluator.agents.key_proxy import (
    SHUTDOWN_POLL_S,
    KeyProxy,
    KeyRoute,
    keys_held_back,
    placeholder,
    route_environment,
)

KEY = "sk-ant-api03-Zx9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0Ed-AbCdEfGhIjKl"
ROUTE = KeyRoute(
    base_url_env="BASE",
    key_envs=("API_KEY", "TOKEN"),
    default_upstream="https://provider.invalid",
    key_headers=("x-api-key", "authorization"),
    key_params=("key",),
)


class Upstream:
    """A loopback upstream that records what it was sent and answers with a stream of events,
    the second sent only once `release` is set."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        self.release = threading.Event()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                upstream.seen.append((self.command, self.path, dict(self.headers), body))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(b"data: first\n\n")
                self.wfile.flush()
                upstream.release.wait(10)
                self.wfile.write(b"data: second\n\n")

            do_GET = do_POST

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # the proxy's own poll: the default (0.5 s) would be every test's wait at the shutdown
        self.thread = threading.Thread(
            target=self.httpd.serve_forever,
            kwargs={"poll_interval": SHUTDOWN_POLL_S},
            daemon=True,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/prefix"


@contextmanager
def upstream_server() -> Iterator[Upstream]:
    upstream = Upstream()
    upstream.thread.start()
    try:
        yield upstream
    finally:
        upstream.release.set()
        upstream.httpd.shutdown()
        upstream.httpd.server_close()


def connect(proxy: KeyProxy) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", proxy.listening_port, timeout=10)


def closes_within(proxy: KeyProxy, seconds: float) -> bool:
    """Whether closing `proxy` ends in time (a close left hanging fails the test, not the run)."""
    closing = threading.Thread(target=proxy.close, daemon=True)
    closing.start()
    closing.join(seconds)
    return not closing.is_alive()


def test_the_key_replaces_the_placeholder_in_the_declared_places_only() -> None:
    routed = route_environment(ROUTE, {"API_KEY": KEY, "OTHER": "x"})
    assert routed is not None
    assert routed.env == {"API_KEY": placeholder("API_KEY"), "OTHER": "x"}
    assert routed.upstream == "https://provider.invalid"
    with upstream_server() as upstream, KeyProxy(ROUTE, upstream.url, routed.keys) as proxy:
        upstream.release.set()
        client = connect(proxy)
        fake = placeholder("API_KEY")
        client.request(
            "POST",
            f"{proxy.base_path}/v1/messages?key={fake}&note={fake}",
            body=b'{"hello": 1}',
            headers={"x-api-key": fake, "x-other": fake, "Host": "elsewhere.invalid"},
        )
        assert client.getresponse().read() == b"data: first\n\ndata: second\n\n"
    method, path, headers, body = upstream.seen[0]
    assert (method, body) == ("POST", b'{"hello": 1}')
    # The upstream's own path prefix, the key in its parameter, nothing else touched.
    assert path == f"/prefix/v1/messages?key={KEY}&note={fake}"
    assert headers["x-api-key"] == KEY and headers["x-other"] == fake
    assert headers["Host"] == upstream.url.split("/")[2]


def test_a_bearer_token_is_swapped_inside_its_header() -> None:
    routed = route_environment(ROUTE, {"TOKEN": KEY})
    assert routed is not None
    with upstream_server() as upstream, KeyProxy(ROUTE, upstream.url, routed.keys) as proxy:
        upstream.release.set()
        client = connect(proxy)
        client.request(
            "GET",
            f"{proxy.base_path}/v1/models",
            headers={"Authorization": f"Bearer {routed.env['TOKEN']}"},
        )
        client.getresponse().read()
    assert upstream.seen[0][2]["Authorization"] == f"Bearer {KEY}"


def test_a_stream_is_relayed_as_it_arrives() -> None:
    routed = route_environment(ROUTE, {"API_KEY": KEY})
    assert routed is not None
    with upstream_server() as upstream, KeyProxy(ROUTE, upstream.url, routed.keys) as proxy:
        client = connect(proxy)
        client.request("POST", f"{proxy.base_path}/v1/messages", body=b"{}")
        response = client.getresponse()
        # The upstream holds its second event until the first has reached the client: a proxy
        # that buffered the response would time out here.
        assert response.read1(100) == b"data: first\n\n"
        upstream.release.set()
        assert response.read() == b"data: second\n\n"


@pytest.mark.parametrize("target", ["http://example.com/v1/messages", "example.com:443"])
def test_a_request_for_another_host_is_refused(target: str) -> None:
    with upstream_server() as upstream, KeyProxy(ROUTE, upstream.url, {"p": KEY}) as proxy:
        client = connect(proxy)
        method = "CONNECT" if ":443" in target else "GET"
        client.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        client.endheaders()
        response = client.getresponse()
        assert response.status in (403, 405)
        assert KEY not in response.read().decode()
    assert upstream.seen == []


@pytest.mark.parametrize(
    "target", ["/v1/messages", "/{token}x/v1/messages", "/x{token}/v1/messages", "/v1/{token}"]
)
def test_a_request_without_the_proxys_token_is_refused(target: str) -> None:
    """Any process of the machine can reach a loopback port; only the agent knows the token."""
    with upstream_server() as upstream, KeyProxy(ROUTE, upstream.url, {"p": KEY}) as proxy:
        upstream.release.set()
        client = connect(proxy)
        client.request("POST", target.format(token=proxy.base_path[1:]), body=b"{}")
        response = client.getresponse()
        assert response.status == 403
        assert KEY not in response.read().decode()
    assert upstream.seen == []


def test_the_token_is_the_base_urls_path_and_differs_per_proxy() -> None:
    with (
        KeyProxy(ROUTE, "http://127.0.0.1:9", {"p": KEY}) as first,
        KeyProxy(ROUTE, "http://127.0.0.1:9", {"p": KEY}) as second,
    ):
        assert first.url.endswith(first.base_path) and second.url.endswith(second.base_path)
        assert first.base_path != second.base_path
        assert len(first.base_path) > 20
        assert first.upstream_target(first.base_path) == "/"
        assert first.upstream_target(f"{first.base_path}?a=1") == "/?a=1"
        assert first.upstream_target(second.base_path + "/v1") is None


def test_an_upstream_that_refuses_is_the_clients_outage() -> None:
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    port = dead.getsockname()[1]
    dead.close()
    with KeyProxy(ROUTE, f"http://127.0.0.1:{port}", {"p": KEY}) as proxy:
        client = connect(proxy)
        client.request("POST", f"{proxy.base_path}/v1/messages", body=b"{}")
        with pytest.raises(http.client.RemoteDisconnected):
            client.getresponse()


def test_the_proxy_leaves_no_socket_or_thread_behind() -> None:
    before = set(threading.enumerate())
    with upstream_server() as upstream:
        upstream.release.set()
        with KeyProxy(ROUTE, upstream.url, {"p": KEY}) as proxy:
            client = connect(proxy)
            client.request("POST", f"{proxy.base_path}/x", body=b"{}")
            client.getresponse().read()
            port = proxy.listening_port
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5)
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []


@pytest.mark.parametrize(
    "env",
    [
        {"OTHER": "x"},  # no key: nothing to hold back
        {"API_KEY": KEY, "BASE": "http://user:pw@gateway.invalid"},  # the URL is a login
        {"API_KEY": KEY, "BASE": "unix:///run/gateway.sock"},
    ],
)
def test_what_the_proxy_cannot_stand_in_for_is_left_as_it_was(env: dict[str, str]) -> None:
    assert route_environment(ROUTE, env) is None
    with keys_held_back(ROUTE, env, scripted=False) as (agent_env, url):
        assert agent_env is env and url is None


def test_a_scripted_run_keeps_its_public_key() -> None:
    env = {"API_KEY": "scripted-key-public"}
    with keys_held_back(ROUTE, env, scripted=True) as (agent_env, url):
        assert agent_env is env and url is None


def test_a_real_key_is_held_back_while_the_block_lasts() -> None:
    env = {"API_KEY": KEY, "BASE": "https://gateway.invalid/anthropic"}
    with keys_held_back(ROUTE, env, scripted=False) as (agent_env, url):
        assert agent_env["BASE"] == url
        assert agent_env["API_KEY"] == placeholder("API_KEY")
        assert agent_env["BASE"].startswith("http://127.0.0.1:")
        assert KEY not in "".join(agent_env.values())
        port = urlsplit(agent_env["BASE"]).port
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5)


@pytest.mark.parametrize("runner", [ClaudeCodeRunner, GeminiCliRunner])
def test_each_key_variable_of_a_routed_agent_is_routed(runner: type) -> None:
    route = runner.key_routing
    assert route is not None
    # Every variable the runner passes a key in is one the proxy holds back.
    assert set(runner.credential_env) <= set(route.key_envs)


def test_closing_cuts_a_request_waiting_on_a_silent_upstream() -> None:
    # An upstream that accepts the connection and never answers: the agent was killed (its
    # timeout), and the proxy must end with it, not when the upstream's wait runs out.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    before = set(threading.enumerate())
    try:
        proxy = KeyProxy(ROUTE, f"http://127.0.0.1:{silent.getsockname()[1]}", {"p": KEY})
        proxy.__enter__()
        client = connect(proxy)
        client.request("POST", f"{proxy.base_path}/v1/messages", body=b"{}")
        accepted, _ = silent.accept()  # the proxy's request has reached the upstream
        assert closes_within(proxy, 5)
        assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []
        accepted.close()
    finally:
        silent.close()


def test_closing_cuts_a_client_that_never_finishes_its_request() -> None:
    # A process the agent left behind holds a half-sent request open: the proxy still ends.
    before = set(threading.enumerate())
    proxy = KeyProxy(ROUTE, "http://127.0.0.1:9", {"p": KEY}).__enter__()
    port = proxy.listening_port
    lingering = socket.create_connection(("127.0.0.1", port), timeout=5)
    lingering.sendall(b"POST /v1/messages HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
    time.sleep(0.2)  # the request is being read
    assert closes_within(proxy, 5)
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []
    lingering.close()


class WebSocketUpstream:
    """A loopback upstream that takes one WebSocket handshake, records its head, answers
    `status` and then echoes every byte back until the client closes (a raw socket: the
    tunnel relays bytes, whatever the frames say)."""

    def __init__(self, status: str = "101 Switching Protocols") -> None:
        self.status = status
        self.head = b""
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/prefix"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            self.head, _, rest = data.partition(b"\r\n\r\n")
            conn.sendall(f"HTTP/1.1 {self.status}\r\nUpgrade: websocket\r\n\r\n".encode())
            if rest:
                conn.sendall(rest)
            while chunk := conn.recv(4096):
                conn.sendall(chunk)

    def close(self) -> None:
        self.listener.close()
        self.thread.join(5)


def _handshake(proxy: KeyProxy, token: str) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", proxy.listening_port), timeout=10)
    client.sendall(
        (
            f"GET {proxy.base_path}/v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    return client


def _read_until(client: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = client.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def test_a_websocket_handshake_carries_the_key_and_the_tunnel_relays_both_ways() -> None:
    # Codex's built-in OpenAI provider opens its Responses stream as a WebSocket first: the
    # handshake's header carries the key, the frames after it go through untouched.
    routed = route_environment(ROUTE, {"TOKEN": KEY})
    assert routed is not None
    before = set(threading.enumerate())
    upstream = WebSocketUpstream()
    try:
        with KeyProxy(ROUTE, upstream.url, routed.keys) as proxy:
            client = _handshake(proxy, routed.env["TOKEN"])
            answer = _read_until(client, b"\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 101 ")
            client.sendall(b"\x81\x05frame")
            assert _read_until(client, b"frame").endswith(b"\x81\x05frame")
            client.close()
    finally:
        upstream.close()
    head = upstream.head.decode()
    assert head.startswith("GET /prefix/v1/responses HTTP/1.1\r\n")
    assert f"Authorization: Bearer {KEY}" in head and placeholder("TOKEN") not in head
    assert f"Host: {upstream.url.split('/')[2]}" in head and "Upgrade: websocket" in head
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []


def test_an_upstream_that_refuses_the_websocket_is_answered_as_it_answered() -> None:
    upstream = WebSocketUpstream("426 Upgrade Required")
    try:
        with KeyProxy(ROUTE, upstream.url, {"p": KEY}) as proxy:
            client = _handshake(proxy, "p")
            assert _read_until(client, b"\r\n\r\n").startswith(b"HTTP/1.1 426 ")
            client.close()
    finally:
        upstream.close()


def test_a_websocket_without_the_proxys_token_is_refused() -> None:
    upstream = WebSocketUpstream()
    try:
        with KeyProxy(ROUTE, upstream.url, {"p": KEY}) as proxy:
            client = socket.create_connection(("127.0.0.1", proxy.listening_port), timeout=10)
            client.sendall(
                b"GET /v1/responses HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
            )
            assert _read_until(client, b"\r\n\r\n").startswith(b"HTTP/1.0 403 ")
            client.close()
    finally:
        upstream.close()
    assert upstream.head == b""


def test_closing_cuts_an_open_websocket_tunnel() -> None:
    before = set(threading.enumerate())
    upstream = WebSocketUpstream()
    try:
        proxy = KeyProxy(ROUTE, upstream.url, {"p": KEY}).__enter__()
        client = _handshake(proxy, "p")
        assert _read_until(client, b"\r\n\r\n").startswith(b"HTTP/1.1 101 ")
        # Both sides hold the tunnel open: only the proxy's close can end it.
        assert closes_within(proxy, 5)
        assert client.recv(10) == b""
        client.close()
    finally:
        upstream.close()
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []
