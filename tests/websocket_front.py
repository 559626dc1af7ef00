"""A loopback front for the scripted server that takes WebSocket handshakes, as the OpenAI API
does: the key broker's tunnel is then crossed by a real CLI's WebSocket (Codex's built-in
provider opens its Responses stream as one), which the scripted server, HTTP only, never
sees. Each handshake is accepted (RFC 6455) and its head and first message kept, then the
connection is closed; every other request is relayed to the scripted server untouched, so that
the CLI, falling back to HTTPS, finishes its attempt there."""

from __future__ import annotations

import base64
import hashlib
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


@dataclass
class Handshake:
    head: str
    message: bytes


@dataclass
class WebSocketFront:
    upstream: str  # the scripted server's base URL
    handshakes: list[Handshake] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        parts = urlsplit(self.upstream)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}{parts.path}"
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            headers = _headers(head)
            if headers.get("upgrade", "").lower() == "websocket":
                self._websocket(conn, head, headers, rest)
            else:
                self._relay(conn, head, headers, rest)

    def _websocket(
        self, conn: socket.socket, head: bytes, headers: dict[str, str], rest: bytes
    ) -> None:
        accept = base64.b64encode(
            hashlib.sha1(headers["sec-websocket-key"].encode() + _GUID).digest()
        )
        conn.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        reader = _Reader(conn, rest)
        message = b""
        while True:
            first, second = reader.take(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", reader.take(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", reader.take(8))
            mask = reader.take(4) if second & 0x80 else b"\0\0\0\0"
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(reader.take(length)))
            if first & 0x0F in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    break
        self.handshakes.append(Handshake(head.decode("latin-1"), message))
        conn.sendall(b"\x88\x02\x03\xf3")  # close: 1011, the server cannot go on

    def _relay(
        self, conn: socket.socket, head: bytes, headers: dict[str, str], rest: bytes
    ) -> None:
        body = rest
        while len(body) < int(headers.get("content-length") or 0):
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        with socket.create_connection(self.target, timeout=30) as upstream:
            upstream.sendall(head + b"\r\n\r\n" + body)
            while chunk := upstream.recv(65536):
                conn.sendall(chunk)

    def close(self) -> None:
        self.listener.close()
        self.thread.join(5)


class _Reader:
    def __init__(self, conn: socket.socket, buffered: bytes) -> None:
        self.conn = conn
        self.buffer = buffered

    def take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise ConnectionError("the client closed the WebSocket mid-frame")
            self.buffer += chunk
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}


@contextmanager
def websocket_front(upstream: str) -> Iterator[WebSocketFront]:
    front = WebSocketFront(upstream)
    try:
        yield front
    finally:
        front.close()
