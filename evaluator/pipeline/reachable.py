"""Whether a real model's endpoint (`--base-url`, `--judge-base-url`) can be reached at all,
asked once before anything runs.

An agent whose endpoint refuses connections does not fail: it retries until the attempt's
timeout (Codex: `Reconnecting... waiting for network`), so a mistyped port cost five minutes per
attempt before every case ended `blocked: environment`. Only a definite answer stops the run: the
name does not resolve, the host refuses or has no route. A slow answer goes ahead (a
busy server), and so does any URL behind a proxy (the variables the agents honour), which this
process cannot stand in for.
"""

from __future__ import annotations

import errno
import os
import socket
from urllib.parse import urlsplit

from evaluator.credentials import without_userinfo

CONNECT_TIMEOUT_S = 5.0
PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")
_NO_ROUTE = (errno.ENETUNREACH, errno.EHOSTUNREACH)


def unreachable(url: str) -> str | None:
    """Why nothing can connect to `url`, or None when it can (or this cannot tell)."""
    if any(os.environ.get(name) or os.environ.get(name.upper()) for name in PROXY_VARIABLES):
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    shown = without_userinfo(url)
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S):
            return None
    except socket.gaierror as exc:
        return f"{shown}: the host name {parts.hostname!r} does not resolve ({exc.strerror})"
    except ConnectionRefusedError:
        return f"{shown}: nothing listens on {parts.hostname}:{port} (connection refused)"
    except OSError as exc:
        if exc.errno in _NO_ROUTE:
            return f"{shown}: no route to {parts.hostname}:{port} ({exc.strerror})"
        return None  # a timeout or another transient failure: the agents will tell
