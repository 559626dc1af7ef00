"""`docs/file-reference.md`: every key of every eval-repo file kind and every check kind's fields,
generated from the models (`agentic-eval schemas export` writes it, `schemas check` and a test
fail when it drifts), with one example per check kind that the models validate.
"""

from __future__ import annotations

import types
import typing
from typing import Any, get_args, get_origin

import yaml
from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from evaluator.contract.models import (
    OPERATORS,
    AllOfCheck,
    AnyOfCheck,
    Case,
    Check,
    Evaluation,
    LeafCheck,
    NotCheck,
    RepoConfig,
    Rubric,
    Suite,
    Target,
)

OPERATOR_MODELS: dict[str, type[BaseModel]] = {
    "not": NotCheck,
    "any_of": AnyOfCheck,
    "all_of": AllOfCheck,
}

FILE_KINDS: tuple[tuple[str, type[BaseModel], str], ...] = (
    ("agentic-eval.yaml", RepoConfig, "Settings for the whole eval repo (optional)."),
    ("targets/<id>/target.yaml", Target, "One skill under test."),
    ("suite.yaml", Suite, "A named list of cases."),
    ("case files (`<case>.yaml`)", Case, "One prompt, its workspace set-up and its assertions."),
    ("rubrics/<id>.yaml", Rubric, "Dimensions a subjective evaluation scores."),
    ("evaluations/<id>.yaml", Evaluation, "Variants compared on shared cases."),
)

# What a key means, for keys whose model field carries no description (those that do say it
# there, which the JSON Schemas show too). `test_file_reference` requires a meaning for every key
# and refuses an entry that names no field.
MEANINGS: dict[str, str] = {
    "RepoConfig.default_target": "The target commands use when none is named (`--target`).",
    "RepoConfig.splits": "How cases are split into train / val / test (`list --split`).",
    "SplitSettings.seed": "Seed of the hash that assigns a case without `split:` to a split.",
    "SplitSettings.val_fraction": "Share of those cases in `val`.",
    "SplitSettings.test_fraction": "Share of those cases in `test`; the rest is `train`.",
    "Target.target_id": "The target's id: the directory name under `targets/`.",
    "Target.roots": "Source-workspace folders copied into every attempt workspace besides"
    " `entry_skill` (the skill's references, scripts, assets).",
    "Target.default_suites": "The suites a run takes when none is named (`--suite`).",
    "Target.suite_root": "Folder of the suites, relative to the target directory.",
    "Target.artifact_contract": "Upstream: the run artifacts the target expects (informative).",
    "Target.allowed_statuses": "The case statuses this target's results may use.",
    "Target.focus_areas": "Upstream: themes the cases cover (informative).",
    "Target.title": "A human title for reports.",
    "Target.description": "A longer description for reports.",
    "Target.defaults": "Run defaults for this target; command-line flags win.",
    "ArtifactContract.required": "Run artifacts that must exist (`<case_id>` stands for each).",
    "TargetDefaults.attempts": "Attempts per case (K) when neither the case nor `--attempts`"
    " sets it.",
    "TargetDefaults.timeout_s": "Seconds per attempt when neither the case nor `--timeout` sets"
    " it; at most 86400 (a day).",
    "TargetDefaults.agent": "The agent runner when `--agent` is not given.",
    "TargetDefaults.model": "The agent's model when `--model` is not given.",
    "Suite.suite_id": "The suite's id (what `--suite` names).",
    "Suite.title": "A human title for reports.",
    "Suite.description": "A longer description for reports.",
    "Case.case_id": "The case's id (what `--case` names); unique in the repo.",
    "Case.title": "A human title for reports.",
    "Case.input": "What the agent is given.",
    "Case.setup": "How the attempt workspace differs from the skill's files alone.",
    "Case.assertions": "What the agent must do (`required`) and must not do (`forbidden`).",
    "Case.notes": "Notes for the skill's author; shown in the report, never to the agent.",
    "Case.attempts": "Attempts of this case (K), over the target's default.",
    "Case.timeout_s": "Seconds per attempt of this case, over the target's default; at most"
    " 86400 (a day): `1.0e+12` is refused, and `1e12` is text to YAML 1.1 (an exponent needs a"
    " dot and a sign), refused as a string.",
    "Case.split": "The split this case belongs to, over the seeded hash.",
    "CaseInput.locale": "Upstream: the prompt's language (informative).",
    "CaseSetup.docs_index_present": "Whether the skill's docs index is in the workspace (false:"
    " removed before the agent starts).",
    "CaseSetup.env_vars_required": "Variables the case needs, passed to the agent from the"
    " environment agentic-eval runs in. One that is not set there is a setup mismatch, known"
    " before the agent starts: the agent is not started and the attempt is `blocked:"
    " environment` (the eval's; `unmet_needs` names it), as `explain` says beforehand"
    ' (AGENT.md, "Environment mismatches").',
    "CaseSetup.env_vars_notes": "Upstream: what those variables are for (informative).",
    "CaseSetup.write_files": "Files written into the workspace before the agent starts.",
    "CaseSetup.remove_paths": "Workspace paths removed before the agent starts.",
    "CaseSetup.copy_fixtures": "Fixture files or folders copied into the workspace.",
    "CaseSetup.env": "Variables set for the agent's process.",
    "CaseSetup.secret_env_vars": "Names among `env` and `env_vars_required` whose values are"
    " secrets: redacted from every artifact.",
    "CaseSetup.network_mode": "Upstream network fact; only `offline` can be honoured (agent"
    " commands never reach a network), the others are refused at validate.",
    "CaseSetup.sample_repo_available": "Upstream: whether a sample repository is present"
    " (informative).",
    "WriteFile.path": "Workspace-relative path of the file.",
    "WriteFile.content": "Its text.",
    "CaseAssertions.summary": "One line on what the case checks, for reports.",
    "CaseAssertions.required": "Entries the agent's behaviour must satisfy.",
    "CaseAssertions.forbidden": "Entries that must not be observed; one observed fails the case.",
    "AssertionEntry.description": "What the entry checks, in a sentence (the report's label).",
    "AssertionEntry.pass_criteria": "Prose the rules compile, or the model judge grades, to"
    " decide a required entry when it has no `checks`.",
    "AssertionEntry.fail_signals": "Prose that, when it holds, fails the case (forbidden entries).",
    "AssertionEntry.evidence_scope": "Upstream: which artifacts the criteria speak of"
    " (`accepted-session.json`, `task-agent-raw.jsonl`).",
    "CaseNotes.why_it_matters": "Why the case matters, for the report.",
    "CaseNotes.likely_fix_files": "Skill files to edit when the case fails (the report links"
    " them).",
    "Rubric.rubric_id": "The rubric's id (what an evaluation's `rubric` names).",
    "Rubric.title": "A human title.",
    "Rubric.description": "What the rubric measures.",
    "Rubric.dimensions": "The dimensions scored, each on its own scale.",
    "RubricDimension.name": "The dimension's name.",
    "RubricDimension.description": "What the dimension means, shown to the model judge.",
    "RubricDimension.scale": "The allowed scores, in order.",
    "Evaluation.eval_id": "The evaluation's id.",
    "Evaluation.mode": "`ab` (two variants of a skill), `comparison` (several), `subjective`"
    " (rubric scores).",
    "Evaluation.title": "A human title.",
    "Evaluation.rubric": "The rubric every variant is scored on: a path in the eval repo"
    " (`rubrics/<id>.yaml`) or its `rubric_id`.",
    "Evaluation.variants": "The variants compared, by label.",
    "Evaluation.target_id": "The target whose cases run.",
    "Evaluation.suites": "The suites that run (default: the target's defaults).",
    "Evaluation.shared_cases": "Cases taken from another target, shared by every variant.",
    "Variant.label": "The variant's name in reports.",
    "Variant.target_id": "The target whose skill this variant uses.",
    "Variant.skill_path": "A skill folder or SKILL.md this variant uses.",
    "Variant.skill_ref": "A git revision of the source workspace this variant uses.",
    "Variant.source_url": "Where this variant's skill comes from (informative).",
    "SharedCases.from_target": "The target the shared cases come from.",
    "SharedCases.suites": "Its suites that are shared.",
    "CommandRanCheck.exit_code": "The exit code the command must have ended with.",
    "ScriptRanCheck.exit_code": "The exit code the script must have ended with.",
    "FileWrittenCheck.path": "Workspace-relative path or glob the agent wrote (any tool).",
    "FinalAnswerContainsCheck.text": "Text the final answer must contain.",
    "FinalAnswerContainsCheck.case_sensitive": "Match case exactly (default: ignore case).",
    "AgentSaidCheck.text": "Text some message of the agent to the user must contain.",
    "AgentSaidCheck.case_sensitive": "Match case exactly (default: ignore case).",
    "FinalAnswerMatchesCheck.pattern": "Regular expression (RE2) searched in the final answer.",
    "WorkspaceFileExistsCheck.path": "Workspace-relative path or glob that must exist after the"
    " run.",
    "WorkspaceFileContainsCheck.path": "Workspace-relative path or glob of the file(s) to read.",
    "WorkspaceFileContainsCheck.text": "Text one of them must contain.",
    "WorkspaceFileMatchesCheck.path": "Workspace-relative path or glob of the file(s) to read.",
    "WorkspaceFileMatchesCheck.pattern": "Regular expression (RE2) searched in their content.",
}

# One example per check kind, as an author writes it; `test_file_reference` validates each.
CHECK_EXAMPLES: dict[str, dict[str, Any]] = {
    "file_read": {"kind": "file_read", "path": ".agents/skills/s/references/a.md"},
    "read_before": {"kind": "read_before", "first": "SKILL.md", "then": "references/*"},
    "command_ran": {"kind": "command_ran", "pattern": r"pytest\b", "exit_code": 0},
    "ran_before": {"kind": "ran_before", "first": r"\bgit status\b", "then": r"\bgit commit\b"},
    "script_ran": {"kind": "script_ran", "path": "scripts/new_migration.py"},
    "url_fetched": {"kind": "url_fetched", "host": "docs.example.com", "before_read": "docs/*"},
    "file_written": {"kind": "file_written", "path": "migrations/*.sql"},
    "final_answer_contains": {"kind": "final_answer_contains", "text": "rollback"},
    "agent_said": {"kind": "agent_said", "text": "--dry-run"},
    "final_answer_matches": {"kind": "final_answer_matches", "pattern": r"\b0\d{3}_\w+\.sql\b"},
    "final_answer_url": {"kind": "final_answer_url", "local_only": True},
    "workspace_file_exists": {"kind": "workspace_file_exists", "path": "migrations/0001_*.sql"},
    "workspace_file_contains": {
        "kind": "workspace_file_contains",
        "path": "migrations/0001_*.sql",
        "text": "ADD COLUMN",
    },
    "workspace_file_matches": {
        "kind": "workspace_file_matches",
        "path": "migrations/*.sql",
        "pattern": r"ADD COLUMN \w+ TEXT",
    },
    "workspace_env_value": {"kind": "workspace_env_value", "variable": "STRIPE_SECRET_KEY"},
    "command": {"kind": "command", "command": "test -s {{output_dir}}/out.txt"},
    "agent_spawned": {"kind": "agent_spawned", "fork_context": False},
    "spawned_agents_named": {"kind": "spawned_agents_named"},
    "skill_invoked": {"kind": "skill_invoked", "skill": "release-notes"},
    "not": {"not": {"kind": "file_read", "path": "references/other.md"}},
    "any_of": {
        "any_of": [
            {"kind": "command_ran", "pattern": "npm test"},
            {"kind": "command_ran", "pattern": "pnpm test"},
        ]
    },
    "all_of": {
        "all_of": [
            {"kind": "file_read", "path": "SKILL.md"},
            {"kind": "file_read", "path": "references/a.md"},
        ]
    },
}


RUN_FILES = """## Run directory: the attempt's access trace

Where a tracer ran (`--trace auto|on`), each attempt's folder
`runs/<run_id>/case-artifacts/<case>/attempts/attempt-NN/` keeps the tracer's log, redacted and
gzip-compressed, named for the tracer that wrote it (its `attempt.json` says which under
`isolation_layers.trace`). Both write strace's line format (one syscall a line), read by the same
code.

| tracer | file, from session 17 | before session 17 |
|---|---|---|
| strace | `trace.strace.gz` | `trace.strace.gz` |
| eBPF loader | `trace.ebpf.gz` | `trace.strace.gz` |

`judge` of a run directory reads either name (an old run's eBPF log under `trace.strace.gz` gives
the same verdicts), and its `transcript.md` names the file as it is on disk; `history`,
`compare` and `explain` do not read the trace.
"""


def meaning(model: type[BaseModel], name: str) -> str:
    return model.model_fields[name].description or MEANINGS.get(f"{model.__name__}.{name}", "")


def documented_models() -> list[type[BaseModel]]:
    """Every model a file kind or a check kind is made of, each once."""
    found: list[type[BaseModel]] = []

    def walk(model: type[BaseModel]) -> None:
        if model in found:
            return
        found.append(model)
        for field in model.model_fields.values():
            for inner in _models_in(field.annotation):
                if not _is_check(inner):
                    walk(inner)

    for _, model, _ in FILE_KINDS:
        walk(model)
    for model in leaf_check_models():
        walk(model)
    return found


def leaf_check_models() -> list[type[BaseModel]]:
    return [m for m in get_args(LeafCheck) if isinstance(m, type) and issubclass(m, BaseModel)]


def check_kind(model: type[BaseModel]) -> str:
    (kind,) = get_args(model.model_fields["kind"].annotation)
    return str(kind)


def validate_example(example: dict[str, Any]) -> None:
    TypeAdapter(Check).validate_python(example)


def render() -> str:
    out = [
        "# Eval-repo file reference",
        "",
        "Every key of every file kind, generated from the models (`agentic-eval schemas export`",
        "writes this page; `agentic-eval schemas check` fails when it drifts). *Open* files keep",
        "keys this project does not know (the public format may add some); *closed* ones refuse",
        "them with a did-you-mean. JSON Schemas of the same models are in `schemas/`.",
        "",
    ]
    for title, model, summary in FILE_KINDS:
        out += [f"## {title}", "", summary, ""]
        out += _model_section(model, seen=set())
    out += _checks_section()
    out += ["", *RUN_FILES.splitlines()]
    return "\n".join(out).rstrip() + "\n"


def _model_section(
    model: type[BaseModel], seen: set[type[BaseModel]], prefix: str = ""
) -> list[str]:
    lines = [
        f"{'Open' if model.model_config.get('extra') != 'forbid' else 'Closed'}"
        f" (`{model.__name__}`). " + _doc(model),
        "",
        "| key | type | required / default | meaning |",
        "|---|---|---|---|",
    ]
    nested: list[tuple[str, type[BaseModel]]] = []
    for name, field in model.model_fields.items():
        key = field.alias or name
        lines.append(
            f"| `{prefix}{key}` | {_type_text(field.annotation)} | {_default_text(field)}"
            f" | {_cell(meaning(model, name))} |"
        )
        for inner in _models_in(field.annotation):
            if inner not in seen and not _is_check(inner):
                nested.append((f"{prefix}{key}.", inner))
    lines.append("")
    for inner_prefix, inner in nested:
        if inner in seen:
            continue
        seen.add(inner)
        lines += [f"**`{inner_prefix.rstrip('.')}`**", ""]
        lines += _model_section(inner, seen, inner_prefix)
    return lines


def _checks_section() -> list[str]:
    lines = [
        "## Check kinds",
        "",
        "A `checks:` list under an assertion entry decides it exactly; leaf checks are told apart",
        "by `kind`, the operators by their key (`not:`, `any_of:`, `all_of:`).",
        "",
    ]
    for model in leaf_check_models():
        kind = check_kind(model)
        lines += [f"### `{kind}`", "", _doc(model), ""]
        fields = [(n, f) for n, f in model.model_fields.items() if n != "kind"]
        if fields:
            lines += ["| field | type | required / default | meaning |", "|---|---|---|---|"]
            for name, field in fields:
                lines.append(
                    f"| `{field.alias or name}` | {_type_text(field.annotation)} |"
                    f" {_default_text(field)} | {_cell(meaning(model, name))} |"
                )
            lines.append("")
        lines += _example(kind)
    for operator in OPERATORS:
        lines += [f"### `{operator}`", ""]
        lines += _example(operator)
        # An operator's options beside its operands (`not`'s `if_seen`).
        model = OPERATOR_MODELS[operator]
        options = [
            (n, f)
            for n, f in model.model_fields.items()
            if n not in ("operand", "operands", "note")
        ]
        if options:
            lines += ["| field | type | required / default | meaning |", "|---|---|---|---|"]
            for name, field in options:
                lines.append(
                    f"| `{field.alias or name}` | {_type_text(field.annotation)} |"
                    f" {_default_text(field)} | {_cell(meaning(model, name))} |"
                )
            lines.append("")
    return lines


def _example(kind: str) -> list[str]:
    example = yaml.safe_dump({"checks": [CHECK_EXAMPLES[kind]]}, sort_keys=False).rstrip()
    return ["```yaml", example, "```", ""]


def _doc(model: type[BaseModel]) -> str:
    doc = model.__doc__ or ""
    if doc.startswith(f"{model.__name__}("):  # pydantic's generated signature, not prose
        return ""
    return " ".join(doc.split())


def _is_check(model: type[BaseModel]) -> bool:
    return model.__name__.endswith("Check")


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _type_text(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _type_text(get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in get_args(annotation) if a is not type(None)]
        if any(_is_check_type(a) for a in parts):
            return "check"
        return " or ".join(dict.fromkeys(_type_text(a) for a in parts))
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in get_args(annotation))
    if origin in (list, tuple):
        args = get_args(annotation)
        return f"list of {_type_text(args[0])}" if args else "list"
    if origin is dict:
        key, value = get_args(annotation) or (str, Any)
        return f"map of {_type_text(key)} to {_type_text(value)}"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "check" if _is_check(annotation) else f"`{annotation.__name__}`"
        return {"str": "text", "int": "integer", "float": "number", "bool": "true / false"}.get(
            annotation.__name__, annotation.__name__
        )
    return "check" if _is_check_type(annotation) else str(annotation).replace("typing.", "")


def _is_check_type(annotation: Any) -> bool:
    return annotation is Check or (
        isinstance(annotation, type) and issubclass(annotation, BaseModel) and _is_check(annotation)
    )


def _default_text(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        try:
            value = field.default_factory()  # type: ignore[call-arg]
        except TypeError:
            return "optional"
        return f"default `{_value_text(value)}`" if value not in ([], {}) else "optional"
    if field.default is None or field.default is PydanticUndefined:
        return "optional"
    return f"default `{_value_text(field.default)}`"


def _value_text(value: Any) -> str:
    if isinstance(value, BaseModel):
        return "{}"
    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
