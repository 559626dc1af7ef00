"""The key broker: a loopback reverse proxy that holds a provider key so the agent never does.

An agent CLI passes its environment to its shell tool, so a key in that environment can be
printed in a form no string redaction recognises (reversed, hex, in halves). With a real key the
runner gives the CLI this proxy as its base URL and a placeholder in place of each key; the
proxy puts the real value back on each request and forwards it to the one upstream it was made
for, relaying the response as it arrives (server-sent events stream through unbuffered).

What it refuses: any request not in origin form (`GET http://other.host/`, `CONNECT`), so it
is never an open proxy; the upstream's host is fixed, whatever `Host` the client sent. Any
request whose path does not begin with the proxy's own unguessable token: a loopback port is
open to every process of the machine, other users' included, and only the agent is told the
token (in its base URL). A tool
call that reaches it can make model requests on the user's key, as the agent itself can; it
cannot read the key (the response carries what the upstream sent, never the request's headers).

A WebSocket handshake (Codex's built-in OpenAI provider opens its Responses stream as one) is
sent on with the key in place of the placeholder, and once the upstream has answered, the
connection is a tunnel of bytes both ways: the key travels in the handshake's headers only.
"""

from __future__ import annotations

import http.client
import secrets
import socket
import ssl
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from evaluator.credentials import key_placeholder

# Headers that belong to one connection, not to the request or response relayed over it.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
_CHUNK = 64 * 1024
# How long the proxy waits on an upstream that accepted the connection but sends nothing: as
# long as an agent would (its own timeout ends the attempt first).
UPSTREAM_TIMEOUT_S = 600.0
# How often the serving thread looks for close(): socketserver's default (0.5 s) was the wait of
# every close, at the end of every attempt the proxy serves.
SHUTDOWN_POLL_S = 0.05


# What the agent holds instead of the key in a variable: public, and one per variable so the
# proxy knows which value to put back.
placeholder = key_placeholder


@dataclass(frozen=True)
class KeyRoute:
    """Which of an agent's variables name its base URL and its keys, and where its requests
    carry a key: declared by each runner, applied by `route_environment`."""

    # None: the agent takes its base URL from a file, which the runner writes with the proxy's.
    base_url_env: str | None
    key_envs: tuple[str, ...]
    # The provider's own URL, when the environment names none.
    default_upstream: str
    # Headers whose value holds a key (`Authorization: Bearer <key>` too) and query parameters.
    key_headers: tuple[str, ...] = ()
    key_params: tuple[str, ...] = ()


@dataclass(frozen=True)
class RoutedEnvironment:
    """An agent's environment with its keys taken out, what the proxy needs to put them back,
    and where it forwards to."""

    env: dict[str, str]
    upstream: str
    keys: dict[str, str]  # placeholder -> real value


def route_environment(route: KeyRoute, env: Mapping[str, str]) -> RoutedEnvironment | None:
    """`env` with each key of `route` replaced by its placeholder, or None when there is no key
    to hold back, or the upstream is one the proxy cannot stand in for (not http(s), or with a
    user and password in its URL, which the CLI itself turns into its login)."""
    keys = {placeholder(name): env[name] for name in route.key_envs if env.get(name)}
    if not keys:
        return None
    upstream = (
        env.get(route.base_url_env) if route.base_url_env else None
    ) or route.default_upstream
    parts = urlsplit(upstream)
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    routed = dict(env)
    for name in route.key_envs:
        if env.get(name):
            routed[name] = placeholder(name)
    return RoutedEnvironment(routed, upstream, keys)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A malformed request ends its own connection; no traceback on the evaluator's
        output (the default prints one)."""
        return


class KeyProxy:
    """One proxy for one upstream, on its own 127.0.0.1 port; a context manager that stops it
    (its listening socket and every thread) on exit."""

    def __init__(self, route: KeyRoute, upstream: str, keys: Mapping[str, str]) -> None:
        parts = urlsplit(upstream)
        self.route = route
        self.scheme = parts.scheme
        self.host = parts.hostname or ""
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")
        self.keys = dict(keys)
        # The first path segment of every request the proxy serves (module docstring).
        self.base_path = "/" + secrets.token_urlsafe(18)
        self._httpd = _QuietServer(("127.0.0.1", 0), _make_handler(self))
        # Request threads are joined on close (non-daemon: the server tracks them), so none
        # outlives the proxy.
        self._httpd.daemon_threads = False
        self._httpd.block_on_close = True
        # The connections in use, the clients' and the upstreams': closing the proxy cuts them,
        # so a request still waiting on an upstream that never answers, or a client that never
        # finishes its request (a process the agent left), ends with the proxy.
        self._upstreams: set[http.client.HTTPConnection] = set()
        self._tunnels: set[socket.socket] = set()
        self._clients: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closing = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": SHUTDOWN_POLL_S},
            name="key-proxy",
            daemon=True,
        )

    @property
    def listening_port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL the agent is given: the port and the token."""
        return f"http://127.0.0.1:{self.listening_port}{self.base_path}"

    def upstream_target(self, request_target: str) -> str | None:
        """The request's target without the proxy's token, or None when it does not begin with
        the token (another host's absolute URL, or a client that was not told it)."""
        rest = request_target.removeprefix(self.base_path)
        if rest == request_target or rest[:1] not in ("", "/", "?"):
            return None
        return rest if rest.startswith("/") else "/" + rest

    def __enter__(self) -> KeyProxy:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join()
        with self._lock:
            self._closing = True
            sockets = [u.sock for u in self._upstreams if u.sock is not None]
            sockets += [*self._tunnels, *self._clients]
            for sock in sockets:
                with suppress(OSError):  # already closed by its peer
                    sock.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()

    def with_keys(self, headers: list[tuple[str, str]], target: str) -> tuple[Any, str]:
        """The request's headers and target with each placeholder replaced by its key, in the
        places the route names only."""
        carried = {name.lower() for name in self.route.key_headers}
        out = [(n, self._swap(v) if n.lower() in carried else v) for n, v in headers]
        path, _, query = target.partition("?")
        if query and self.route.key_params:
            pairs = [
                (k, self._swap(v) if k in self.route.key_params else v)
                for k, v in parse_qsl(query, keep_blank_values=True)
            ]
            query = urlencode(pairs)
        return out, self.prefix + path + (f"?{query}" if query else "")

    def _swap(self, value: str) -> str:
        for fake, real in self.keys.items():
            value = value.replace(fake, real)
        return value

    def connection(self) -> http.client.HTTPConnection:
        """A new connection to the upstream, cut when the proxy closes (`release` it)."""
        upstream: http.client.HTTPConnection
        if self.scheme == "https":
            upstream = http.client.HTTPSConnection(self.host, self.port, timeout=UPSTREAM_TIMEOUT_S)
        else:
            upstream = http.client.HTTPConnection(self.host, self.port, timeout=UPSTREAM_TIMEOUT_S)
        with self._lock:
            if self._closing:
                raise OSError("the key proxy is closing")
            self._upstreams.add(upstream)
        return upstream

    def tunnel_socket(self) -> socket.socket:
        """A new socket to the upstream for a WebSocket tunnel (TLS for https), cut when the
        proxy closes (`release_tunnel` it)."""
        port = self.port or (443 if self.scheme == "https" else 80)
        sock = socket.create_connection((self.host, port), timeout=UPSTREAM_TIMEOUT_S)
        if self.scheme == "https":
            try:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
            except (OSError, ValueError):
                sock.close()
                raise
        with self._lock:
            if self._closing:
                sock.close()
                raise OSError("the key proxy is closing")
            self._tunnels.add(sock)
        return sock

    def release_tunnel(self, sock: socket.socket) -> None:
        with self._lock:
            self._tunnels.discard(sock)
        sock.close()

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        return self.host if self.port in (None, default) else f"{self.host}:{self.port}"

    def track(self, client: socket.socket, live: bool) -> None:
        """Notes a client's connection as open (`live`) or done."""
        with self._lock:
            if live:
                self._clients.add(client)
            else:
                self._clients.discard(client)

    def release(self, upstream: http.client.HTTPConnection) -> None:
        with self._lock:
            self._upstreams.discard(upstream)
        upstream.close()


def _make_handler(proxy: KeyProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # One request per connection: the response ends when the connection closes, so a
        # stream is relayed without knowing its length.
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            return  # the agent's requests are not the evaluator's output

        def setup(self) -> None:
            super().setup()
            proxy.track(self.connection, live=True)

        def finish(self) -> None:
            proxy.track(self.connection, live=False)
            super().finish()

        def do_CONNECT(self) -> None:
            self._refuse(405, "the key proxy forwards to its one upstream only")

        def _relay(self) -> None:
            path = proxy.upstream_target(self.path)
            if path is None:
                # `GET http://other.host/...`, or a path without the token.
                self._refuse(
                    403, "the key proxy forwards the agent's requests to its upstream only"
                )
                return
            if self.headers.get("Upgrade", "").lower() == "websocket":
                self._tunnel(path)
                return
            body = self._body()
            headers = [(n, v) for n, v in self.headers.items() if n.lower() not in _HOP_BY_HOP]
            headers, target = proxy.with_keys(headers, path)
            try:
                upstream = proxy.connection()
            except OSError:
                self.close_connection = True  # closing: no answer, as from a dead upstream
                return
            try:
                upstream.putrequest(self.command, target, skip_accept_encoding=True)
                for name, value in headers:
                    upstream.putheader(name, value)
                upstream.putheader("Content-Length", str(len(body)))
                upstream.endheaders(body)
                response = upstream.getresponse()
            except OSError:
                proxy.release(upstream)
                # The client sees the upstream's outage as its own: no answer at all.
                self.close_connection = True
                return
            try:
                self.send_response_only(response.status, response.reason)
                for name, value in response.getheaders():
                    if name.lower() not in _HOP_BY_HOP:
                        self.send_header(name, value)
                length = response.getheader("Content-Length")
                if length is not None and response.getheader("Transfer-Encoding") is None:
                    self.send_header("Content-Length", length)
                self.send_header("Connection", "close")
                self.end_headers()
                # read1: whatever has arrived, at once; a stream's events as they come.
                while chunk := response.read1(_CHUNK):
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass  # the client or the upstream went away: the stream just ends
            finally:
                proxy.release(upstream)

        def _tunnel(self, path: str) -> None:
            """A WebSocket handshake sent on with the key in place, then the bytes of both
            directions relayed until either side closes (or the proxy does)."""
            self.close_connection = True
            headers = [(n, v) for n, v in self.headers.items() if n.lower() != "host"]
            headers, target = proxy.with_keys(headers, path)
            head = [f"{self.command} {target} HTTP/1.1", f"Host: {proxy.host_header}"]
            head += [f"{name}: {value}" for name, value in headers]
            try:
                upstream = proxy.tunnel_socket()
            except OSError:
                return  # the client sees the upstream's outage as its own: no answer at all
            try:
                upstream.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
                to_upstream = threading.Thread(
                    target=_pump_client, args=(self.rfile, upstream), name="key-proxy-tunnel"
                )
                to_upstream.start()
                try:
                    while chunk := upstream.recv(_CHUNK):
                        self.wfile.write(chunk)
                except OSError:
                    pass  # either side went away, or the proxy is closing
                finally:
                    with suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)
                    to_upstream.join()
            except OSError:
                pass
            finally:
                proxy.release_tunnel(upstream)

        def _body(self) -> bytes:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self._chunked_body()
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length > 0 else b""

        def _chunked_body(self) -> bytes:
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()

        def _refuse(self, status: int, message: str) -> None:
            body = f'{{"error": {{"message": "{message}"}}}}'.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _relay

    return Handler


def _pump_client(client: Any, upstream: socket.socket) -> None:
    """The client's bytes to the upstream (what the reader already buffered first), until the
    client closes; then the upstream connection is cut, so that the other direction ends too
    (a WebSocket client that is done sending is done: an upstream that keeps its side open
    would otherwise hold the tunnel until its timeout)."""
    try:
        while chunk := client.read1(_CHUNK):
            upstream.sendall(chunk)
    except (OSError, ValueError):
        pass  # either side went away, or the proxy is closing
    with suppress(OSError):
        upstream.shutdown(socket.SHUT_RDWR)


@contextmanager
def keys_held_back(
    route: KeyRoute | None, env: dict[str, str], scripted: bool
) -> Iterator[tuple[dict[str, str], str | None]]:
    """The environment to start the agent with, and the proxy's URL: `env` itself and None for
    a scripted run (its key is public) or when there is no key to hold back; otherwise `env`
    with placeholders for the keys (and the route's base-URL variable pointed at the proxy)
    and the URL of a proxy that lives until the block ends."""
    routed = None if scripted or route is None else route_environment(route, env)
    if route is None or routed is None:
        yield env, None
        return
    with KeyProxy(route, routed.upstream, routed.keys) as proxy:
        named = {route.base_url_env: proxy.url} if route.base_url_env else {}
        yield {**routed.env, **named}, proxy.url
