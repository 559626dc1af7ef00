"""A judge model endpoint where nothing listens (connection refused) is reported within about a
second, without starting the judge CLI and its minutes of retries; an endpoint that accepts the
connection (and may answer 429 or 5xx) is left to the CLI, which retries those."""

from __future__ import annotations

import socket
from pathlib import Path

from evaluator.agents.base import ModelEndpoint
from evaluator.grader.base import EndpointJudgeBackend, JudgeCall, JudgeReply
from evaluator.grader.bundle import Bundle
from evaluator.grader.grader import Grader, GraderSettings
from evaluator.grader.reach import refused


class _Recording(EndpointJudgeBackend):
    name = "recording"

    def __init__(self, endpoint: ModelEndpoint) -> None:
        super().__init__(endpoint)
        self.calls: list[JudgeCall] = []

    def ask(self, call: JudgeCall) -> JudgeReply:
        self.calls.append(call)
        return JudgeReply(None, "the model answered HTTP 429")


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _ask(backend: _Recording, tmp_path: Path) -> JudgeReply:
    grader = Grader(backend, GraderSettings(scratch_root=tmp_path / "scratch"))
    bundle = Bundle(tmp_path, "0" * 64, (), {})
    return grader._ask("judge this", bundle)


def test_a_refused_endpoint_is_reported_without_starting_the_judge(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    backend = _Recording(ModelEndpoint(model="m", base_url=url))
    reply = _ask(backend, tmp_path)
    assert reply.raw is None and backend.calls == []
    assert reply.error is not None and "refused the connection (3 tries)" in reply.error


def test_an_endpoint_that_accepts_is_left_to_the_judge_and_its_retries(tmp_path: Path) -> None:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        assert refused(url) is None
        backend = _Recording(ModelEndpoint(model="m", base_url=url))
        reply = _ask(backend, tmp_path)
    assert len(backend.calls) == 1 and reply.error == "the model answered HTTP 429"
    # the agent's own default provider (no URL): nothing to probe
    assert refused(None) is None
