"""The options every command that runs agents shares (`run`, `score`), collected into one value.

How and where each attempt runs, which model plays the agent, the jail and trace around it, and
how it is judged: defined once here, so the commands cannot drift apart.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click
from click.core import ParameterSource

from evaluator.adapters import DEFAULT_RUNNER
from evaluator.cli.agent_flags import agent_option_flags, runner_option
from evaluator.cli.grading import build_grader, grader_options, judge_options
from evaluator.cli.options import (
    FiniteFloatRange,
    judge_option,
    lenient_option,
    resolve_grader,
    scratch_memory_option,
)
from evaluator.defaults import DEFAULT_SCRATCH, MAX_TIMEOUT_S
from evaluator.sandbox import DEFAULT_TRACER, jail_names, tracer_choices
from evaluator.vocabulary import JudgeMode, ScratchMemory

if TYPE_CHECKING:  # the pipeline and the judge are imported when the command runs
    from evaluator.artifacts.models import JudgeSettings
    from evaluator.judge import ModelGrader
    from evaluator.pipeline.run import RunOptions
    from evaluator.sandbox import TraceMode

F = TypeVar("F", bound=Callable[..., Any])

base_url_option = click.option(
    "--base-url",
    default=None,
    metavar="URL",
    help="The agent's model endpoint: any server speaking its provider's API, such as vLLM,"
    ' Ollama or a LiteLLM gateway (docs/cli.md, "Real models", names the API and the'
    " variables of each agent).",
)
api_key_env_option = click.option(
    "--api-key-env",
    default=None,
    metavar="NAME",
    help="Variable holding the key for --base-url (default: the agent's own).",
)


@dataclass
class AgentRunArgs:
    agent: str | None
    workers: int | None
    timeout_s: float | None
    run_id: str | None
    model: str | None
    behaviors: Path | None
    runs_dir: Path
    scratch_root: Path
    keep_scratch: bool
    scratch_memory: ScratchMemory
    # Per adapter, what `--agent-option` (for the run's agent: key "") and the adapters'
    # alias flags (`--codex-bin`, ...) set.
    agent_options: dict[str, dict[str, object]]
    auth_from: Path | None
    base_url: str | None
    api_key_env: str | None
    sandbox: str | None
    trace: TraceMode
    tracer: str
    lenient: bool
    judge_mode: JudgeMode
    judge_model: str | None
    judge_agent: str | None
    judge_votes: int | None
    judge_base_url: str | None
    judge_api_key_env: str | None

    def apply(self, options: RunOptions) -> None:
        """Sets the run's fields these options decide (everything but the judge)."""
        for name, value in asdict(self).items():
            if not name.startswith("judge_"):
                setattr(options, name, value)

    def judge_settings(self) -> JudgeSettings:
        """The judge options as the manifest records them."""
        from evaluator.artifacts.models import JudgeSettings

        return JudgeSettings(
            mode=self.judge_mode,
            model=self.judge_model,
            agent=self.judge_agent,
            votes=self.judge_votes,
            base_url=self.judge_base_url,
            api_key_env=self.judge_api_key_env,
        )

    def judge_named(self) -> bool:
        """Whether the user gave any judge option (on the command line or by its variable),
        even one equal to its default."""
        context = click.get_current_context()
        return any(
            context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)
            for name in _JUDGE_FIELDS
        )

    def take_judge(self, earlier: JudgeSettings) -> None:
        """Judges as an earlier run did (`--rerun-failed`)."""
        self.judge_mode, self.judge_model = earlier.mode, earlier.model
        self.judge_agent, self.judge_votes = earlier.agent, earlier.votes
        self.judge_base_url, self.judge_api_key_env = earlier.base_url, earlier.api_key_env

    @contextmanager
    def judging(self, options: RunOptions) -> Iterator[ModelGrader | None]:
        """The run judged as these options ask: its model judge, closed when the run ends, and
        the options its manifest records, which `run --rerun-failed` judges with again (every
        command that judges, not `run` alone: an `evaluate` variant's run was rerun with the
        default chain)."""
        options.judge = self.judge_settings()
        with self._grader() as grader:
            options.grader = grader
            yield grader

    @contextmanager
    def _grader(self) -> Iterator[ModelGrader | None]:
        """The model judge `--judge`/`--judge-model` ask for, closed when the run ends."""
        built = build_grader(
            self.judge_model,
            self.judge_votes,
            judge_agent=self.judge_agent,
            behaviors=self.behaviors,
            # The run's agent is the default runner's when none is named.
            judge_agent_options=judge_options(
                self.agent_options, self.agent or DEFAULT_RUNNER, self.judge_agent
            ),
            auth_from=self.auth_from,
            scratch_root=self.scratch_root,
            base_url=self.judge_base_url,
            api_key_env=self.judge_api_key_env,
            mode=self.judge_mode,
        )
        try:
            yield resolve_grader(self.judge_mode, built)
        finally:
            if built is not None:
                built.close()


_FIELDS = tuple(f.name for f in fields(AgentRunArgs) if f.name != "agent_options")
_JUDGE_FIELDS = tuple(name for name in _FIELDS if name.startswith("judge_"))


def agent_run_options(func: F) -> F:
    """Adds the shared options and hands them to the command as one `run_args` value."""

    @functools.wraps(func)
    def command(**kwargs: Any) -> Any:
        shared = {name: kwargs.pop(name) for name in _FIELDS}
        shared["agent_options"] = kwargs.pop("agent_options")
        if shared["scratch_memory"] != "off":
            from evaluator.workspace.memory import enter_private_mounts

            # Now, while the command has one thread (evaluator/workspace/memory.py).
            enter_private_mounts()
        return func(run_args=AgentRunArgs(**shared), **kwargs)

    decorators = [
        runner_option(
            f"Agent runner, or an agent for its default runner (default {DEFAULT_RUNNER};"
            " docs/agents.md lists each agent's)."
        ),
        click.option(
            "--workers",
            type=click.IntRange(1, 64),
            default=None,
            help="Attempts run at once (default: twice the cores, 2 to 8).",
        ),
        click.option(
            "--timeout",
            "timeout_s",
            type=FiniteFloatRange(min=1, max=MAX_TIMEOUT_S),
            default=None,
            help="Seconds per attempt (default: the case's timeout_s, else the target's, else 300).",
        ),
        click.option(
            "--run-id", default=None, help="Name of the run directory (default: time-based)."
        ),
        click.option("--model", default=None, help="Model name passed to the agent."),
        click.option(
            "--behaviors",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=None,
            help="Run against the scripted model server with these behaviours.",
        ),
        click.option(
            "--runs-dir",
            type=click.Path(path_type=Path, file_okay=False),
            default=Path("runs"),
            show_default=True,
        ),
        click.option(
            "--scratch-root",
            type=click.Path(path_type=Path, file_okay=False),
            default=DEFAULT_SCRATCH,
            show_default=True,
            help="Workspaces and agent homes (not under /tmp).",
        ),
        click.option(
            "--keep-scratch",
            is_flag=True,
            help="Keep this run's workspaces and agent homes (removed when the run ends by default).",
        ),
        scratch_memory_option,
        agent_option_flags,
        click.option(
            "--auth-from",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=None,
            help="Copy only the login file from this agent home (real models; docs/agents.md).",
        ),
        base_url_option,
        api_key_env_option,
        click.option(
            "--sandbox",
            type=click.Choice(jail_names()),
            default=None,
            help="Jail around the agent (default: bwrap where bubblewrap works, else none).",
        ),
        click.option(
            "--trace",
            type=click.Choice(["auto", "on", "off"]),
            default="auto",
            show_default=True,
            help="Trace the agent's file accesses with strace (auto: where strace works).",
        ),
        click.option(
            "--tracer",
            type=click.Choice(tracer_choices()),
            default=DEFAULT_TRACER,
            show_default=True,
            help="Which tracer traces: auto (ebpf where it loads: root, a kernel with BTF, the"
            " loader built by ./dev setup; else strace; the manifest notes which and why), ebpf"
            " or strace (forced; ebpf where it cannot load falls back to strace with a note under"
            " --trace auto, is refused under --trace on).",
        ),
        judge_option,
        grader_options,
        lenient_option,
    ]
    decorated: Any = command
    for decorate in reversed(decorators):
        decorated = decorate(decorated)
    return cast(F, decorated)
