"""How the criteria compiler does on held-out sentences: `tests/fixtures/criteria-heldout.json`.

Each sentence was written with the checks it must compile to, or `refuse` when it speaks of
meaning, quality, intent, counts, scope or order no rule sees. A sentence is compiled as the
description of one required entry, as `criteria_shares` compiles a public suite's expectation.
Per set (`tuned`: the compiler was improved on it; `fresh`: written afterwards, never tuned on;
`skill`: written before the forms it measures were built, each row compiled with the vocabulary
of the invented skill it names; `pool`: each rule taken from the TUNE half of the held-out pool
of real repos (`criteria_shares --pool`), with the look-alikes it must refuse):

- decided: sentences labelled with checks that compile to one of their expected forms;
- refused: sentences labelled `refuse` that refuse;
- unsound: a `refuse` sentence that compiles, or a sentence that compiles to other checks;
- missed: a sentence labelled with checks that refuses (the model judge grades it).

Run: .venv/bin/python -m benchmarks.criteria_heldout [--json] [--verbose]
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evaluator.contract.models import Check

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "tests/fixtures/criteria-heldout.json"
# `skill`: sentences about a skill's own commands, each compiled with the vocabulary of the
# invented skill its row names (issue 23's "rather than" and skill-defined phrases). `pool`: the
# rules taken from the held-out pool's TUNE half, and their look-alikes.
SETS = ("tuned", "fresh", "skill", "pool")

# A command pattern that is one literal between word boundaries, as the compiler writes it.
_LITERAL_COMMAND = re.compile(r"^\(\?:\^\|\[\^\\w-\]\)(?P<literal>.*)\(\?:\$\|\[\^\\w-\]\)$")


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


def _command(pattern: str) -> str:
    from evaluator.judge.command_pattern import command_literal
    from evaluator.judge.literal_checks import GIT_OPTIONS

    # A command literal is compiled to allow the program's own options before its subcommand
    # and its short flags in any order: the literal is what it was made from.
    made = command_literal(pattern)
    if made is not None:
        return made
    pattern = pattern.replace(rf"git{GIT_OPTIONS}\s+", r"git\ ")
    literal = _LITERAL_COMMAND.match(pattern)
    return _unescape(literal["literal"]) if literal else f"/{pattern}/"


def canonical(check: Check) -> str:
    """A check in the compact form the held-out labels are written in: `file_read(a.md)`,
    `command_ran(make test; exit 0)`, `not ...`, `all_of[...]`."""
    from evaluator.contract.models import AllOfCheck, AnyOfCheck, NotCheck

    if isinstance(check, NotCheck):
        seen = "" if check.if_seen is None else f" (if seen: {check.if_seen})"
        return f"not{seen} {canonical(check.operand)}"
    if isinstance(check, AnyOfCheck | AllOfCheck):
        return f"{check.kind}[{', '.join(canonical(c) for c in check.operands)}]"
    fields = check.model_dump(mode="json", exclude_none=True, exclude={"kind", "note"})
    exit_code = fields.pop("exit_code", None)
    if check.kind == "command_ran":
        parts = [_command(fields.pop("pattern"))]
    elif check.kind == "script_ran" and "command" in fields:
        parts = [fields.pop("path"), f"/{fields.pop('command')}/"]
        if "without" in fields:
            parts.append(f"without /{fields.pop('without')}/")
    elif check.kind == "ran_before":
        parts = [_command(fields.pop("first")), _command(fields.pop("then"))]
    elif check.kind == "read_before":
        parts = [fields.pop("first"), fields.pop("then")]
    elif check.kind == "workspace_file_contains":
        parts = [fields.pop("path"), fields.pop("text")]
    else:
        parts = [str(v) for v in fields.values() if v is not False]
        fields = {}
    parts += [f"{k}={v}" for k, v in fields.items() if v is not False]
    text = ", ".join(parts)
    if exit_code is not None:
        text += f"; exit {exit_code}"
    return f"{check.kind}({text})"


@dataclass(frozen=True)
class Outcome:
    sentence: str
    expected: str  # "refuse" or the expected forms joined by " | "
    got: str  # "refuse" or the compiled form
    verdict: str  # decided, refused, unsound, missed


def judge(sentence: str, expect: str | list[str], skill: str | None = None) -> Outcome:
    from evaluator.adapters import agent_names
    from evaluator.contract.models import AllOfCheck, AssertionEntry
    from evaluator.judge.criteria import compile_entry
    from evaluator.judge.skill_vocabulary import skill_vocabulary

    # No skill unless the row names one (an invented skill under `tests/fixtures/skills/`), as
    # for the upstream repo's targets; the agents' names, as a run hands them in.
    vocabulary = skill_vocabulary(ROOT / skill if skill else None, agent_names())
    compiled = compile_entry(AssertionEntry(description=sentence), "required", vocabulary)
    if compiled is None:
        got = "refuse"
    else:
        check = (
            compiled.checks[0]
            if len(compiled.checks) == 1
            else AllOfCheck(operands=compiled.checks)
        )
        got = canonical(check)
    if expect == "refuse":
        verdict = "refused" if got == "refuse" else "unsound"
        return Outcome(sentence, "refuse", got, verdict)
    if got == "refuse":
        return Outcome(sentence, " | ".join(expect), got, "missed")
    verdict = "decided" if got in expect else "unsound"
    return Outcome(sentence, " | ".join(expect), got, verdict)


def outcomes(path: Path = HELDOUT) -> dict[str, list[Outcome]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        name: [judge(row["sentence"], row["expect"], row.get("skill")) for row in data[name]]
        for name in SETS
        if name in data
    }


def summary(rows: list[Outcome]) -> dict[str, int]:
    counts = {"sentences": len(rows), "exact": sum(r.expected != "refuse" for r in rows)}
    for verdict in ("decided", "refused", "unsound", "missed"):
        counts[verdict] = sum(r.verdict == verdict for r in rows)
    return counts


def main(argv: list[str]) -> int:
    results = outcomes()
    if "--json" in argv:
        print(json.dumps({name: summary(rows) for name, rows in results.items()}, indent=1))
        return 0
    for name, rows in results.items():
        counts = summary(rows)
        exact = counts["exact"]
        share = 100 * counts["decided"] / exact if exact else 0.0
        print(
            f"{name}: {counts['sentences']} sentences; {counts['decided']} of {exact} exact"
            f" decided by rules ({share:.0f}%); {counts['refused']} of"
            f" {counts['sentences'] - exact} near-misses refused; unsound {counts['unsound']}"
        )
        if "--verbose" in argv:
            for row in rows:
                if row.verdict not in ("decided", "refused"):
                    print(
                        f"  {row.verdict}: {row.sentence}\n    want {row.expected}\n    got  {row.got}"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
