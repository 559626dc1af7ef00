"""SkillOpt's `EnvAdapter` over our pipeline: one item per eval case, the verified pass rate as
`hard`, and `python -m evaluator.integrations.skillopt train|eval ...` to start SkillOpt's own
scripts with this adapter registered (no fork of SkillOpt).

Needs the `integrations` extra (`pip install 'agentic-eval[integrations]'`).
"""

from __future__ import annotations

import inspect
import json
import sys
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from skillopt.datasets.base import SplitDataLoader
from skillopt.envs.base import EnvAdapter

from evaluator.artifacts.attribution import CaseScore, score_case
from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.rundir import RunDir
from evaluator.defaults import DEFAULT_MIN_COVERAGE, DEFAULT_SCRATCH
from evaluator.errors import EXIT_ENVIRONMENT, EvalError, InputError
from evaluator.integrations.items import export_split_dir
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from evaluator.plan import open_repo, select_cases
from evaluator.yamlsource import load_yaml

ENV_NAME = "agentic-eval"
# The `env.*` keys SkillOpt 0.2.0 maps to its own settings (`skillopt.config._FLATTEN_MAP`).
SKILLOPT_ENV_KEYS = frozenset({"name", "out_root", "skill_init"})


class InfrastructureFailure(RuntimeError, EvalError):
    """The agent's model or tooling failed: SkillOpt must stop, not score the skill 0."""

    exit_code = EXIT_ENVIRONMENT


class CaseSplitLoader(SplitDataLoader):  # type: ignore[misc]
    """SkillOpt's split loader over our stable splits: without a `split_dir` it exports the
    selected cases to `<out_root>/_generated_splits/agentic-eval/` first."""

    def __init__(self, adapter: AgenticEvalAdapter, split_dir: str = "", **kwargs: Any) -> None:
        super().__init__(split_dir=split_dir, split_mode="split_dir", **kwargs)
        self.split_dir: str = split_dir
        self.adapter = adapter

    def setup(self, cfg: dict[str, Any]) -> None:
        given = self.split_dir or str(cfg.get("split_dir") or "")
        if not given:
            out_root = Path(str(cfg.get("out_root") or ".")).resolve()
            target = out_root / "_generated_splits" / ENV_NAME
            repo = open_repo(self.adapter.repo, self.adapter.source_workspace)
            selection = select_cases(repo, self.adapter.target, self.adapter.suites)
            export_split_dir(repo, selection, target)
            self.split_dir = str(target)
        super().setup(cfg)
        if not self.val_items:
            # SkillOpt selects skills on `val` (valid_seen): over no case every skill scores
            # 0.0 (`n=0`), every candidate ties and is rejected, and nothing says why.
            counts = f"train {len(self.train_items)}, val 0, test {len(self.test_items)}"
            fix = (
                "put some items in its val/items.json"
                if given
                else "give some cases `split: val` in their case files, or raise"
                " `splits.val_fraction` in agentic-eval.yaml (`agentic-eval list --split val`"
                " shows the split)"
            )
            raise InputError(
                f"SkillOpt's selection split holds no case ({counts}): its gate would score"
                f" every skill 0.0 over nothing; {fix}",
                path=given or self.adapter.repo,
                field="val",
            )


class AgenticEvalAdapter(EnvAdapter):  # type: ignore[misc]
    """Runs K attempts per item through our pipeline with the candidate as the entry skill."""

    def __init__(
        self,
        repo: str = "agentic-evals",
        source_workspace: str = "",
        target: str = "",
        suites: str | list[str] = "",
        behaviors: str = "",
        attempts_k: int = 1,
        workers: int = 0,
        exec_timeout: float = 300,
        agent: str = "",
        target_model: str = "",
        agent_bin: str = "",
        base_url: str = "",
        api_key_env: str = "",
        auth_from: str = "",
        scratch_root: str = "",
        min_coverage: float = DEFAULT_MIN_COVERAGE,
        split_dir: str = "",
        seed: int = 42,
        limit: int = 0,
        analyst_workers: int = 4,
        failure_only: bool = False,
        minibatch_size: int = 8,
        edit_budget: int = 4,
        **_: Any,
    ) -> None:
        self.repo = Path(repo)
        self.source_workspace = Path(source_workspace) if source_workspace else None
        self.target = target or None
        self.suites = tuple(suites.split(",") if isinstance(suites, str) and suites else suites)
        self.behaviors = Path(behaviors) if behaviors else None
        self.attempts_k = int(attempts_k)
        self.workers = int(workers) or None
        self.exec_timeout = float(exec_timeout)
        self.agent = agent or None
        # SkillOpt's default model names mean its own backends, never a scripted run's model.
        self.model = target_model if target_model and not self.behaviors else None
        self.agent_bin = Path(agent_bin) if agent_bin else None  # the agent CLI to run
        # A real model's endpoint and credentials, as `score`'s `--base-url`, `--api-key-env` and
        # `--auth-from`: SkillOpt passes only the keys a constructor names, so without them a
        # config's `env.base_url` vanished and the agent went to the provider's default endpoint
        # with whatever key the environment held. Only the variable's name is kept, never the key.
        self.base_url = base_url or None
        self.api_key_env = api_key_env or None
        self.auth_from = Path(auth_from) if auth_from else None
        self.scratch_root = Path(scratch_root) if scratch_root else DEFAULT_SCRATCH
        self.min_coverage = float(min_coverage)
        self.analyst_workers = analyst_workers
        self.failure_only = failure_only
        self.minibatch_size = minibatch_size
        self.edit_budget = edit_budget
        self.dataloader = CaseSplitLoader(self, split_dir=split_dir, seed=seed, limit=limit)

    # -------------------------------------------------------------- SkillOpt hooks
    def setup(self, cfg: dict[str, Any]) -> None:
        super().setup(cfg)
        self.dataloader.setup(cfg)

    def get_dataloader(self) -> SplitDataLoader:
        return self.dataloader

    def build_env_from_batch(self, batch: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return list(batch.payload or [])

    def build_train_env(self, batch_size: int, seed: int, **kwargs: Any) -> list[dict[str, Any]]:
        return list(self.dataloader.build_train_batch(batch_size, seed).payload or [])

    def build_eval_env(
        self, env_num: int, split: str, seed: int, **kwargs: Any
    ) -> list[dict[str, Any]]:
        return list(self.dataloader.build_eval_batch(env_num, split, seed).payload or [])

    def get_task_types(self) -> list[str]:
        items = [*self.dataloader.train_items, *self.dataloader.val_items]
        return sorted({str(item.get("task_type")) for item in items})

    def rollout(
        self, env_manager: Any, skill_content: str, out_dir: str, **kwargs: Any
    ) -> list[dict[str, Any]]:
        items = [dict(item) for item in env_manager]
        if not items:
            return []
        out = Path(out_dir)
        outcome = Run(
            RunOptions(
                repo=self.repo,
                source_workspace=self.source_workspace,
                target=self.target,
                cases=tuple(str(item["case"]) for item in items),
                agent=self.agent,
                attempts=self.attempts_k,
                workers=self.workers,
                timeout_s=self.exec_timeout,
                model=self.model,
                behaviors=self.behaviors,
                base_url=self.base_url,
                api_key_env=self.api_key_env,
                auth_from=self.auth_from,
                runs_dir=out / "agentic-eval-runs",
                scratch_root=self.scratch_root,
                agent_options={"": {"bin": self.agent_bin}} if self.agent_bin else {},
                skill_text=skill_content,
            ),
            PlainProgress(),
        ).execute()
        if outcome.interrupted:
            raise InfrastructureFailure(f"run {outcome.run_dir.path} was interrupted")
        by_case = {r.case_id: r for r in outcome.results}
        results = []
        for item in items:
            case_result = by_case[str(item["case"])]
            scored = score_case(case_result)
            if scored.outage:
                raise InfrastructureFailure(
                    f"case {item['case']}: the agent's model or tooling failed"
                    f" ({outcome.run_dir.path}); this is not a score"
                )
            write_prediction(
                out / "predictions" / str(item["id"]),
                outcome.run_dir,
                item,
                case_result,
                scored,
                skill_content,
            )
            if scored.has_verdict:
                results.append(rollout_row(item, case_result, scored, outcome.run_dir))
        coverage = len(results) / len(items)
        if not results or coverage < self.min_coverage:
            raise InfrastructureFailure(
                f"only {len(results)} of {len(items)} cases got a verdict"
                f" (min coverage {self.min_coverage:g}); see {outcome.run_dir.path}/report.md"
            )
        return results


def rollout_row(
    item: dict[str, Any], result: CaseResult, scored: CaseScore, run_dir: RunDir
) -> dict[str, Any]:
    """A `skillopt.types.RolloutResult` dict; our extras ride along."""
    failed = [a for a in result.assertions if a.status == "fail"]
    reasons = [f"{a.polarity} assertion failed: {a.summary}" for a in failed]
    if scored.blame is not None:
        reasons.append(f"blocked by the agent: {scored.blame.cause}")
    answer = run_dir.case_artifacts(result.case_id) / "final-answer.txt"
    return {
        "id": item["id"],
        "hard": scored.hard,
        "soft": scored.soft,
        "fail_reason": "; ".join(reasons),
        "task_type": item.get("task_type"),
        "task_description": item.get("task_description"),
        "predicted_answer": answer.read_text(encoding="utf-8").strip() if answer.is_file() else "",
        "status": result.status,
        "pass_rate": result.stats.pass_rate if result.stats else None,
        "attempts": result.stats.attempts if result.stats else None,
        "run_dir": str(run_dir.path),
    }


def conversation(session: dict[str, Any], result: CaseResult) -> list[dict[str, Any]]:
    """SkillOpt's trajectory entries from our normalised accepted session."""
    records = session.get("records") or []
    outputs = {
        r.get("call_id"): r.get("text", "") for r in records if r.get("kind") == "tool_result"
    }
    entries: list[dict[str, Any]] = []
    for record in records:
        if record.get("kind") == "tool_call":
            text = str(record.get("text") or "")
            try:
                command = json.loads(text).get("cmd", text)
            except (ValueError, AttributeError):
                command = text
            entries.append(
                {"type": "tool_call", "cmd": command, "obs": outputs.get(record.get("call_id"), "")}
            )
        elif record.get("kind") == "final_answer":
            entries.append({"role": "assistant", "content": record.get("text", "")})
    verdicts = [f"[{a.status}] {a.polarity}: {a.summary}" for a in result.assertions]
    why = f" ({result.blocked_reason})" if result.blocked_reason else ""
    entries.append(
        {
            "role": "system",
            "content": f"[EVALUATION RESULT] case {result.case_id}: {result.status}{why}\n"
            + "\n".join(verdicts),
        }
    )
    return entries


def write_prediction(
    directory: Path,
    run_dir: RunDir,
    item: dict[str, Any],
    result: CaseResult,
    scored: CaseScore,
    skill_content: str,
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    session_path = run_dir.case_artifacts(result.case_id) / "accepted-session.json"
    session = json.loads(session_path.read_text(encoding="utf-8")) if session_path.is_file() else {}
    (directory / "conversation.json").write_text(
        json.dumps(conversation(session, result), indent=2, ensure_ascii=False), encoding="utf-8"
    )
    (directory / "target_system_prompt.txt").write_text(skill_content, encoding="utf-8")
    (directory / "target_user_prompt.txt").write_text(
        str(item.get("task_description") or ""), encoding="utf-8"
    )


def register() -> None:
    """Adds the adapter to the private registries of SkillOpt's train and eval scripts."""
    from scripts import eval_only, train

    train._ENV_REGISTRY[ENV_NAME] = AgenticEvalAdapter
    eval_only._ENV_REGISTRY[ENV_NAME] = AgenticEvalAdapter


def adapter_keys() -> frozenset[str]:
    """The `env.*` keys SkillOpt hands the adapter: the names its constructor declares."""
    parameters = inspect.signature(AgenticEvalAdapter.__init__).parameters.values()
    return frozenset(p.name for p in parameters if p.name != "self" and p.kind is not p.VAR_KEYWORD)


def check_env_keys(config: Path) -> None:
    """Refuses an `env.*` key that nothing reads. SkillOpt passes the adapter only the keys its
    constructor names and drops the others without a word: `attempts: 3` (the CLI's name) ran one
    attempt per case, and a gate on one attempt is a coin toss the config said it was not."""
    document = load_yaml(config)
    env = document.data.get("env") if isinstance(document.data, dict) else None
    if not isinstance(env, dict) or env.get("name") != ENV_NAME:
        return
    known = sorted(adapter_keys() | SKILLOPT_ENV_KEYS)
    for key in env:
        if str(key) in known:
            continue
        near = get_close_matches(str(key), known, n=1)
        hint = f"did you mean `{near[0]}`? " if near else ""
        raise document.key_error(
            ("env", str(key)),
            f"the agentic-eval adapter takes no such key and SkillOpt would drop it without a"
            f" word; {hint}its keys: {', '.join(known)} (docs/skillopt.md)",
        )


def config_path(args: list[str]) -> Path | None:
    for index, arg in enumerate(args):
        if arg == "--config" and index + 1 < len(args):
            return Path(args[index + 1])
        if arg.startswith("--config="):
            return Path(arg.removeprefix("--config="))
    return None


def main(argv: list[str] | None = None) -> None:
    """`python -m evaluator.integrations.skillopt train|eval [SkillOpt's own arguments]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("train", "eval"):
        sys.exit("usage: python -m evaluator.integrations.skillopt train|eval --config FILE ...")
    register()
    from scripts import eval_only, train

    script = train if args[0] == "train" else eval_only
    sys.argv = [f"skillopt-{args[0]}", *args[1:]]
    try:
        if (config := config_path(args)) is not None:
            check_env_keys(config)
        script.main()
    except EvalError as exc:
        # SkillOpt's scripts stop on the adapter's error, as they must; the user gets our one
        # line and exit code (2 bad input, 3 an outage: no score), not a traceback.
        print(f"agentic-eval: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
