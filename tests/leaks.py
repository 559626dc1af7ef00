"""The forms a secret can take in an artifact, and the search for them: shared by the tests that
take a real user's paths with real-looking credentials (issue: credentials never reach an
artifact). The forms are computed here, independently of the redactor."""

from __future__ import annotations

import base64
import gzip
import html
import json
import subprocess
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, quote_plus

import markupsafe
import yaml

# Shaped like each provider's keys, so a rule that looks at shapes would see them as keys.
CODEX_KEY = "sk-proj-Q8vN2xLr7TzWc4YbHs1KmPa9EdGf3JuV6nXo0RiLqS5tB"
CLAUDE_KEY = "sk-ant-api03-Zx9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0Ed-AbCdEfGhIjKl"
GEMINI_KEY = "AIzaSyD4k9Qw2Lm7Xv3Np8Rt1Yb6Hc5Jf0Ge2Ks"
ASCII_SECRET = 'tok-live&7F3e9c2B"1a<Zq>'
NON_ASCII_SECRET = "pässwörd-Zürich-93ß"


def _strace_char(byte: int, escaped: str) -> str:
    """One byte as strace prints it inside a quoted string."""
    if byte in (34, 92):
        return "\\" + chr(byte)
    return chr(byte) if 0x20 <= byte < 0x7F else escaped


def forms(secret: str) -> set[str]:
    """Every form of `secret` an artifact could hold: raw, JSON-escaped (once and twice),
    URL- and HTML-escaped, as strace prints it, and base64 at every offset."""
    data = secret.encode("utf-8")
    found = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(json.dumps(secret)[1:-1])[1:-1],
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
        html.escape(secret),
        str(markupsafe.escape(secret)),
        # strace: octal escapes by default, hex with -x / -xx
        "".join(_strace_char(b, f"\\{b:03o}") for b in data),
        "".join(_strace_char(b, f"\\x{b:02x}") for b in data),
        "".join(f"\\x{b:02x}" for b in data),
    }
    for offset in range(3):
        # The middle of the encoding depends on the secret alone, whatever precedes it.
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            found.add(encode(b"\0" * offset + data).decode()[3:-3])
    return {form for form in found if len(form) >= 8}


def texts(root: Path) -> Iterator[tuple[Path, str]]:
    """Every file under `root` as text (gzip files decompressed, sqlite pages as their bytes
    decode, every zlib stream in it inflated: git's objects, loose or packed), and every name
    in it."""
    for path in root.rglob("*"):
        yield path, path.name
        if path.is_file() and not path.is_symlink():
            raw = path.read_bytes()
            if raw.startswith(b"\x1f\x8b"):
                raw = gzip.decompress(raw)
            yield path, raw.decode("utf-8", errors="replace")
            for inflated in _zlib_streams(raw):
                yield path, inflated.decode("utf-8", errors="replace")


def _zlib_streams(raw: bytes) -> Iterator[bytes]:
    """Whatever inflates from each offset that starts a zlib header (0x78 and a valid check):
    found by trying, independently of any reader of git's formats."""
    view = memoryview(raw)
    start = raw.find(b"\x78")
    while start != -1:
        # deflate with a 32 KiB window, no preset dictionary: what zlib.compress and git write
        if len(raw) > start + 1 and raw[start + 1] in (0x01, 0x5E, 0x9C, 0xDA):
            inflater = zlib.decompressobj()
            try:
                out = inflater.decompress(view[start:], 64 << 20)
            except zlib.error:
                out = b""
            if out:
                yield out
        start = raw.find(b"\x78", start + 1)


def leaks_in(
    secrets: Mapping[str, str], roots: Iterable[Path], outputs: Mapping[str, str] | None = None
) -> list[str]:
    """Where any form of any of `secrets` appears: in a file or a file name under `roots`, or in
    a command's printed output (`outputs`: label to text)."""
    variants = {name: forms(value) for name, value in secrets.items()}
    places: list[tuple[str, str]] = [
        (str(path), text) for root in roots if root.exists() for path, text in texts(root)
    ]
    places += list((outputs or {}).items())
    return [
        f"{place}: {name} as {form!r}"
        for place, text in places
        for name, found in variants.items()
        for form in found
        if form in text
    ]


def leak_steps() -> list[dict[str, object]]:
    """An agent that prints every credential it can reach, every way it can."""
    return [
        {"cmd": 'echo "key: $OPENAI_API_KEY$GATEWAY_KEY$ANTHROPIC_API_KEY"; env | sort'},
        # The literal secret on a command line: the trace sees it in execve's argv.
        {"cmd": f"printf '%s\\n' '{NON_ASCII_SECRET}' > literal.txt"},
        {
            "cmd": 'for k in "$API_TOKEN" "$PASSPHRASE" "$GATEWAY_KEY$ANTHROPIC_API_KEY"; do'
            ' for p in "" x xy; do printf "%s%s" "$p" "$k" | base64 -w0; echo;'
            " printf '%s%s' \"$p\" \"$k\" | base64 -w0 | tr '+/' '-_'; echo; done; done"
        },
        {"cmd": 'touch "./$API_TOKEN.txt" "./$PASSPHRASE"; ls'},
        {"cmd": "cat .agents/skills/db-migrations/references/add-column.md"},
        {"final": f"Done. The token is {ASCII_SECRET} and the passphrase {NON_ASCII_SECRET}."},
    ]


def write_leak_behaviour(directory: Path, prompt_contains: str = "default currency") -> Path:
    directory.mkdir(exist_ok=True)
    behaviour = {
        "name": "leak",
        "match": {"prompt_contains": prompt_contains},
        "steps": leak_steps(),
    }
    path = directory / "leak.yaml"
    path.write_text(yaml.safe_dump(behaviour, allow_unicode=True))
    return path


def declare_case_secrets(case_file: Path, *prose: str) -> None:
    """Give the case the two secrets (declared secret) and, optionally, prose assertions only a
    model judge decides."""
    data = yaml.safe_load(case_file.read_text())
    data["setup"] = {
        "env": {"API_TOKEN": ASCII_SECRET, "PASSPHRASE": NON_ASCII_SECRET},
        "secret_env_vars": ["API_TOKEN", "PASSPHRASE"],
    }
    for text in prose:
        data["assert"]["required"].append({"description": text})
    if prose:
        data.pop("golden", None)
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))


def evaluator_argv(*args: str) -> list[str]:
    """`agentic-eval ARGS` as its own process, with this interpreter."""
    return [sys.executable, "-m", "evaluator", *args]


@contextmanager
def model_server_process(behaviors: Path, log: Path) -> Iterator[str]:
    """The scripted model server started as its own process, as a user runs it to stand in
    for a real provider; yields its base URL, stops it by its PID at the end."""
    server = subprocess.Popen(
        evaluator_argv("model-server", "--behaviors", str(behaviors), "--log", str(log)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=30)
