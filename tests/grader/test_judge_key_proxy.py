"""The model judge reaches a real provider as the agent under test does: through the key-adding
loopback proxy, the key never in the judge CLI's environment nor in any file of its call. The
real CLIs judge against a scripted server standing in for a gateway (`--judge-base-url`,
`--judge-api-key-env`), with keys shaped like each provider's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_adapter
from evaluator.agents import ModelEndpoint
from evaluator.agents.key_proxy import placeholder
from evaluator.grader.base import JudgeCall
from evaluator.grader.prompt import ANSWER_SCHEMA
from tests.support import (
    behavior,
    claude_or_skip,
    codex_or_skip,
    gemini_or_skip,
    scratch_dir,
    serving,
)

KEY_ENV = "JUDGE_PROXY_TEST_KEY"
PROMPT = "Judge whether the proxy test entry holds."
# Shaped like each provider's keys (length, prefix, alphabet); none is real.
KEYS = {
    "codex": "sk-proj-" + "Tq3vX9bLm2Rk7WcYp4Hs8NdJf6Ga1Ze5Uo0Ii" * 2 + "T3BlbkFJ" + "x7Q2" * 8,
    "claude": "sk-ant-api03-" + "Nf4Kp9Rt2Vw7Xy1Zb6Cd3Eg8Hj5Lm0Qs" * 3 + "-AbCdEfAA",
    "gemini": "AIzaSyD" + "4fK9pQ2rT7vW1xY6zB3cE8gH5jL0m",
}
FINDERS: dict[str, Callable[[], Path]] = {
    "codex": codex_or_skip,
    "claude": claude_or_skip,
    "gemini": gemini_or_skip,
}


@pytest.mark.parametrize(
    "adapter",
    [
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_the_judges_key_goes_through_the_proxy_never_into_its_environment(
    adapter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before session 19 the judge's CLI was started with the real key in its environment
    (an agent CLI's own environment is readable by its tool calls: `/proc/<pid>/environ`)."""
    FINDERS[adapter]()
    key = KEYS[adapter]
    monkeypatch.setenv(KEY_ENV, key)
    started: list[dict[str, str]] = []
    module = __import__(f"evaluator.adapters.{adapter}.judge", fromlist=["run_process"])
    real_run = module.run_process

    def spy(argv: list[str], **kwargs: Any) -> Any:
        started.append(dict(kwargs["env"]))
        return real_run(argv, **kwargs)

    monkeypatch.setattr(module, "run_process", spy)
    answer = {"verdict": "not-met", "rationale": "Nothing shows it.", "refs": []}
    # Not under /tmp: Codex cannot start its sandbox there.
    with (
        scratch_dir() as scratch,
        serving(behavior("judge", PROMPT, [{"final_json": answer}])) as server,
    ):
        bundle = scratch / "bundle"
        bundle.mkdir()
        (bundle / "session.json").write_text("{}")
        endpoint = ModelEndpoint(model="m", base_url=server.base_url, api_key_env=KEY_ENV)
        found = get_adapter(adapter)
        backend = found.judge_backend(endpoint, found.options({}))
        reply = backend.ask(JudgeCall(PROMPT, ANSWER_SCHEMA, bundle, scratch / "call", 120))
        sent = {r.credential for r in server.records if r.behavior == "judge"}
        # Nor is it in any file of the call (homes, settings, the CLI's output).
        leaked = [p for p in scratch.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]
    assert reply.error is None and json.loads(reply.raw or "")["verdict"] == "not-met", reply
    # The upstream got the real key: the proxy put it back on the request.
    assert sent == {"sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]}
    [env] = started
    assert [name for name, value in env.items() if key in value] == []
    # It holds the placeholder the proxy swaps for the key.
    assert any(value == placeholder(name) for name, value in env.items()), env
    assert leaked == []
