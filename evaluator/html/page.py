"""The one Jinja2 environment every HTML view renders through, and the page's security policy.

Autoescaping is on for every template: sessions, final answers, commands and paths come from the
agent and may hold markup. The stylesheet and script are our own package files, inlined so the
page needs no server; the Content-Security-Policy allows exactly those two (by hash) and nothing
else, so even markup that escaped escaping could neither run nor fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from evaluator.artifacts.shown_controls import shown_controls
from evaluator.html.markdown import inline

STYLESHEET = "report.css"
SCRIPT = "report.js"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("evaluator.html", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    # Our notes and details quote paths and rules as `code`, as report.md shows them: the filter
    # escapes every text and marks up only those spans (and **bold**).
    # (Controls are shown first: the markdown reader would make a NUL U+FFFD.)
    env.filters["prose"] = lambda text: Markup(inline(shown_controls(str(text))))
    return env


def _shown(value: Any) -> Any:
    """Every value a template writes, with the control characters `transcript.md` and
    `report.md` show as escapes (`artifacts/shown_controls.py`) shown the same way: a browser
    acts on a bidirectional override (it reorders the line around it) and silently drops an
    escape sequence or a BEL, so the page would show the agent's text otherwise than the
    markdown and the terminal do. Our own markup (`Markup`) holds no such character but what it
    quotes, and stays markup."""
    if isinstance(value, Markup):
        return Markup(shown_controls(str(value)))
    if isinstance(value, str):
        return shown_controls(value)
    return value


def _asset(name: str) -> str:
    return (resources.files("evaluator.html") / "templates" / name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


def content_security_policy(style: str, script: str) -> str:
    return (
        "default-src 'none'; "
        f"style-src {_hash(style)}; "
        f"script-src {_hash(script)}; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )


def render_page(template: str, **context: Any) -> str:
    """A whole page: `template` extends `base.html.j2`, which inlines our stylesheet and script."""
    style, script = _asset(STYLESHEET), _asset(SCRIPT)
    return (
        environment()
        .get_template(template)
        .render(
            # Our own package files, trusted as they are; nothing else is ever marked safe.
            style=Markup(style),
            script=Markup(script),
            csp=content_security_policy(style, script),
            **context,
        )
    )
