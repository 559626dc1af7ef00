"""`make_grader`: the model grader the CLI builds from `--judge-model` and `--judge-votes`."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.base import ModelEndpoint
from evaluator.errors import InputError
from evaluator.grader.grader import DEFAULT_SCRATCH, Grader, GraderSettings
from evaluator.grader.registry import get_backend
from evaluator.modelserver import ScriptedModelServer, load_behaviors

DEFAULT_VOTES = 1


def make_grader(
    model: str,
    *,
    votes: int = DEFAULT_VOTES,
    backend: str = "codex",
    behaviors: Path | None = None,
    codex_bin: Path | None = None,
    auth_from: Path | None = None,
    scratch_root: Path = DEFAULT_SCRATCH,
    timeout_s: float = 180.0,
    concurrency: int = 2,
    base_url: str | None = None,
    api_key_env: str | None = None,
) -> Grader:
    """A grader asking `model`. With `behaviors`, the judge talks to its own scripted model
    server playing those behaviours (stopped by `close()`), as agents do under `--behaviors`."""
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
        return Grader(get_backend(backend, endpoint=endpoint, codex_bin=codex_bin), settings)
    server = ScriptedModelServer(load_behaviors(behaviors), model=model).start()
    try:
        endpoint = ModelEndpoint(model=model, base_url=server.base_url, scripted=True)
        judge = get_backend(backend, endpoint=endpoint, codex_bin=codex_bin)
    except BaseException:
        server.stop()
        raise
    return Grader(judge, settings, on_close=server.stop)
