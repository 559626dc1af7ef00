"""Code-mode `exec` JavaScript: the shell commands, patches and path literals inside it.

Nested tool calls in code mode leave no item when the sandbox denies them, so the source is the
only trace. This is a literal scan, not an interpreter: computed strings make the call opaque.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.evidence.jsonl import loads

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'|`((?:[^`\\]|\\.)*)`', re.DOTALL)
_CMD_KEY = re.compile(r"\bcmd\s*:\s*$")
_PATCH_CALL = re.compile(r"apply_patch\s*\(\s*$")


@dataclass
class JsScan:
    commands: list[str] = field(default_factory=list)
    patches: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)


def _decode(raw: str, quote: str) -> str:
    if quote == "`":
        return raw.replace("\\`", "`").replace("\\n", "\n")
    try:
        decoded: str = loads(
            '"'
            + raw.replace('\\"' if quote == '"' else "\\'", '\\"' if quote == '"' else "'")
            + '"'
        )
        return decoded
    except ValueError:
        return raw


def scan_javascript(source: str) -> JsScan:
    scan = JsScan()
    for match in _STRING.finditer(source):
        quote = '"' if match.group(1) is not None else ("'" if match.group(2) is not None else "`")
        raw = (
            match.group(1)
            if match.group(1) is not None
            else (match.group(2) if match.group(2) is not None else match.group(3))
        )
        value = _decode(raw or "", quote)
        before = source[: match.start()]
        if quote == "`" and "${" in value:
            scan.opaque.append("template literal with interpolation in code-mode JavaScript")
            continue
        if _CMD_KEY.search(before):
            scan.commands.append(value)
        elif _PATCH_CALL.search(before) or value.startswith("*** Begin Patch"):
            scan.patches.append(value)
        elif value.startswith(("/", "../", "~/")) and "\n" not in value:
            scan.paths.append(value)
    if re.search(r"\bcmd\s*:\s*[A-Za-z_$(]", source):
        scan.opaque.append("code-mode command built at run time")
    return scan
