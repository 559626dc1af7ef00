"""`make_grader`: the model grader the CLI builds from `--judge-model` and `--judge-votes`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

from evaluator.agents.base import ModelEndpoint
from evaluator.errors import InputError
from evaluator.grader.base import JudgeBackend
from evaluator.grader.grader import DEFAULT_SCRATCH, Grader, GraderSettings
from evaluator.modelserver import ScriptedModelServer, load_behaviors

DEFAULT_VOTES = 1


def make_grader(
    model: str,
    *,
    votes: int = DEFAULT_VOTES,
    backend: Callable[[ModelEndpoint], JudgeBackend],
    behaviors: Path | None = None,
    behavior_agents: Collection[str] = (),
    auth_from: Path | None = None,
    scratch_root: Path = DEFAULT_SCRATCH,
    timeout_s: float = 180.0,
    concurrency: int = 2,
    base_url: str | None = None,
    api_key_env: str | None = None,
) -> Grader:
    """A grader asking `model` through `backend` (an agent adapter's judge). With `behaviors`, the judge talks to its own scripted model
    server playing those behaviours (stopped by `close()`), as agents do under `--behaviors`;
    `behavior_agents` are the agent names their `match.agent` may give (the adapters')."""
    if votes < 1 or votes % 2 == 0:
        raise InputError(
            f"must be an odd number so a majority exists (got {votes})", field="--judge-votes"
        )
    settings = GraderSettings(
        votes=votes, concurrency=concurrency, timeout_s=timeout_s, scratch_root=scratch_root
    )
    if behaviors is None:
        endpoint = ModelEndpoint(
            model=model, base_url=base_url, auth_from=auth_from, api_key_env=api_key_env
        )
        return Grader(backend(endpoint), settings)
    server = ScriptedModelServer(load_behaviors(behaviors, behavior_agents), model=model).start()
    try:
        endpoint = ModelEndpoint(model=model, base_url=server.base_url, scripted=True)
        judge = backend(endpoint)
    except BaseException:
        server.stop()
        raise
    return Grader(judge, settings, on_close=server.stop)
