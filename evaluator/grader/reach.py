"""Whether the judge's model endpoint refuses connections, asked before a judge CLI starts.

A judge CLI retries a failed request with backoff (Codex for about three minutes): right for an
overloaded model (429, 5xx), which may answer later, wasted on an endpoint where nothing listens
(a wrong port, a gateway that is down), which refuses at once and will keep refusing. So a
refused connection is tried a few times within about a second and then reported, and the CLI is
never started; anything else (the connection made, a timeout, a name that does not resolve, a
proxy in between) is left to the CLI and its own retries.
"""

from __future__ import annotations

import os
import socket
import time
from urllib.parse import urlsplit

REFUSED_TRIES = 3
REFUSED_PAUSE_S = 0.3  # before the second try; the third waits twice as long
CONNECT_TIMEOUT_S = 5.0
# A proxy reaches the endpoint for the CLI: a direct connection says nothing about that path.
PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def refused(base_url: str | None) -> str | None:
    """Why the endpoint at `base_url` cannot be reached (every try refused), else None."""
    if not base_url or any(os.environ.get(name) for name in PROXY_VARIABLES):
        return None
    parts = urlsplit(base_url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    host = parts.hostname
    if not host:
        return None
    for attempt in range(REFUSED_TRIES):
        if attempt:
            time.sleep(REFUSED_PAUSE_S * attempt)
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
                return None
        except ConnectionRefusedError:
            continue
        except OSError:
            return None
    return (
        f"the judge's model endpoint {host}:{port} refused the connection ({REFUSED_TRIES} tries)"
    )
