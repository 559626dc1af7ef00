"""Which values are secrets: the one rule every stage uses to decide what must never reach `runs/`.

A secret is a credential a runner passes through or copies in, a value a case declares secret, a
value in the agent's environment whose name says secret, or a credential inside a URL. They are
gathered per attempt into a `SecretSet` before the agent starts, so the trace (redacted while the
agent still runs) and every artifact written afterwards use the same list.
"""

from __future__ import annotations

import base64
import html
import json
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit, urlunsplit

# Words that make a variable (or a URL parameter, or a key of an auth file) a secret.
SECRET_NAME_WORDS = ("SECRET", "TOKEN", "PASSWORD", "PASSWD", "CERTIFICATE", "KEY", "CREDENTIAL")
# The key the runners give an agent talking to our scripted server: public by construction, and
# redacting it would rewrite every artifact that names the scripted set-up.
SCRIPTED_API_KEY = "scripted-model"


def key_placeholder(variable: str) -> str:
    """What an agent holds in `variable` instead of a real key while the key broker
    (`agents/key_proxy.py`) holds the key: public, one per variable, and no secret to redact
    (a report would otherwise show a key printed where the agent printed the placeholder)."""
    return f"agentic-eval-key-proxy-{variable.lower().replace('_', '-')}"


# A credential value from the environment shorter than this is no real key (local servers take
# any, e.g. `local`): redacting it would erase ordinary words and paths (`/usr/local`). Values a
# case declares secret are redacted from MIN_SECRET_LENGTH (artifacts/redact.py) on.
MIN_CREDENTIAL_LENGTH = 8
# A URL's user name is a secret only where it carries a token (`https://<token>@host`), which is
# long; a short one is an account name (`postgres://app@db`) that redaction would erase from text.
MIN_TOKEN_USERNAME = 16


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_NAME_WORDS)


def embedded_credentials(value: str) -> list[tuple[str, str]]:
    """Credentials inside a URL-valued setting: its user-info (the password, or a user name long
    enough to be a token when there is no password) and query parameters whose names say secret
    (`?password=`, `?sslkey=`, `?token=`)."""
    if "://" not in value:
        return []
    try:
        parts = urlsplit(value.strip())
        password = parts.password
        username = parts.username
    except ValueError:
        return []
    found = [("password", password)] if password else []
    if username and not password and len(username) >= MIN_TOKEN_USERNAME:
        found.append(("userinfo", username))
    for key, item in parse_qsl(parts.query, keep_blank_values=False):
        if looks_secret(key) and item:
            found.append((key, item))
    return found


def without_userinfo(url: str) -> str:
    """`url` without its user-info and without query parameters named like secrets, fit for a
    manifest."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = "&".join(
        f"{key}={value}" for key, value in parse_qsl(parts.query) if not looks_secret(key)
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def environment_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """The values of `env` that are secrets: by their variable's name, or inside a URL."""
    found: dict[str, str] = {}
    for name, value in env.items():
        if (
            looks_secret(name)
            and len(value) >= MIN_CREDENTIAL_LENGTH
            and value not in (SCRIPTED_API_KEY, key_placeholder(name))
        ):
            found[name] = value
        for part, credential in embedded_credentials(value):
            found.setdefault(f"{name}:{part}", credential)
    return found


def auth_file_secrets(path: Path, label: str) -> dict[str, str]:
    """The string values under secret-named keys of a JSON login file (Codex's `auth.json`:
    `OPENAI_API_KEY`, `tokens.access_token`, ...), keyed `label:key.path`. A file that does not
    parse is secret whole: it is copied in, so it may be printed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    try:
        document = json.loads(text)
    except ValueError:
        return {label: text.strip()} if text.strip() else {}
    found: dict[str, str] = {}

    def walk(node: object, trail: str, secret: bool) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                name = f"{trail}.{key}" if trail else str(key)
                walk(child, name, secret or looks_secret(str(key)))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, f"{trail}[{index}]", secret)
        elif isinstance(node, str) and secret and node:
            found[f"{label}:{trail}"] = node

    walk(document, "", False)
    return found


class SecretSet:
    """The secrets of one attempt, added to as they become known (the runner adds the
    environment it launches the agent with). Readers take `values()`; `version` changes with
    every addition, so a redactor built from an older list can notice it is stale."""

    def __init__(self, initial: Mapping[str, str] | None = None) -> None:
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()
        self.version = 0
        self.update(initial or {})

    def update(self, values: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        items = values.items() if isinstance(values, Mapping) else values
        with self._lock:
            for name, value in items:
                if not value or value in self._values.values():
                    continue
                key, number = name, 2
                while key in self._values:
                    key, number = f"{name}#{number}", number + 1
                self._values[key] = value
                self.version += 1

    def add_environment(self, env: Mapping[str, str]) -> None:
        self.update(environment_secrets(env))

    def values(self) -> dict[str, str]:
        with self._lock:
            return dict(self._values)


# --------------------------------------------------------------------------- a secret's forms
# Where a secret can be found: what redaction (`artifacts/redact.py`) replaces, and what the
# judge's `workspace_env_value` looks for, so that both agree.

# A base64 run shorter than this is too likely to occur by chance in other encoded data.
MIN_BASE64_CORE = 6


def _strace_escapes(value: str) -> list[str]:
    """How strace prints `value` inside a quoted string: printable ASCII as itself (quote and
    backslash escaped), control characters by their C escape, other bytes in octal (three digits
    where a digit follows, as few as needed otherwise) or, with `-x`/`-xx`, in hex."""
    data = value.encode("utf-8")
    named = {9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}
    octal_min, octal_full, hex_some, hex_all = [], [], [], []
    for index, byte in enumerate(data):
        printable = 0x20 <= byte < 0x7F
        if byte in named:
            plain = named[byte]
        elif printable:
            plain = chr(byte)
        else:
            plain = ""
        following_digit = index + 1 < len(data) and chr(data[index + 1]).isdigit()
        octal_full.append(plain or f"\\{byte:03o}")
        octal_min.append(plain or (f"\\{byte:03o}" if following_digit else f"\\{byte:o}"))
        hex_some.append(plain or f"\\x{byte:02x}")
        hex_all.append(f"\\x{byte:02x}")
    return ["".join(octal_min), "".join(octal_full), "".join(hex_some), "".join(hex_all)]


def _base64_cores(value: str) -> list[str]:
    """The part of base64 that depends on `value`'s bytes alone, for each of the three offsets
    at which it can start inside a longer encoded stream, in both alphabets."""
    data = value.encode("utf-8")
    cores: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        total_bits = (offset + len(data)) * 8
        # Character j covers bits 6j..6j+5: it is the secret's alone when they lie in its bytes.
        first = -(-offset * 8 // 6)
        last = (total_bits - 6) // 6
        core = encoded[first : last + 1]
        if len(core) >= MIN_BASE64_CORE:
            cores.append(core)
            cores.append(core.replace("+", "-").replace("/", "_"))
    return cores


def encodings(value: str) -> list[str]:
    """Every form of `value` our artifacts can contain, raw first."""
    plain: list[str] = []
    for raw in (value, unquote(value)):
        plain.append(raw)
        plain.append(quote(raw, safe=""))
        plain.append(quote_plus(raw, safe=""))
        plain.append(html.escape(raw, quote=False))
        plain.append(html.escape(raw))
        plain.append(html.escape(raw).replace("&#x27;", "&#39;").replace("&quot;", "&#34;"))
        plain += _strace_escapes(raw)
    forms: list[str] = []
    for form in plain:
        forms.append(form)
        once = [json.dumps(form, ensure_ascii=ascii_only)[1:-1] for ascii_only in (False, True)]
        forms += once
        forms += [
            json.dumps(single, ensure_ascii=ascii_only)[1:-1]
            for single in once
            for ascii_only in (False, True)
        ]
    forms += _base64_cores(value)
    unique: list[str] = []
    for form in forms:
        if form not in unique:
            unique.append(form)
    return unique
