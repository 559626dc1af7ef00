"""Every assertion sentence we know, with what the criteria compiler makes of it, pinned.

Sentences come from the project's eval repos and fixtures and from the public suites in
`../shared/fixtures/public-suites/` (read from there, never copied; each compiled with the
vocabulary of its own skill's SKILL.md, as `benchmarks/criteria_shares.py` measures them). A change to the compiler
that changes any sentence's checks (or its refusal) fails here and shows each change; rewrite the
catalogue with `AGENTIC_EVAL_UPDATE_CATALOGUE=1` once every change is meant.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from benchmarks.criteria_shares import suite_skill
from evaluator.adapters import agent_names
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.skill_vocabulary import SkillVocabulary, skill_vocabulary, with_variables
from tests.conftest import ROOT

CATALOGUE = ROOT / "tests/fixtures/criteria-catalogue.json"
PUBLIC = ROOT.parent / "shared/fixtures/public-suites"


def _case_sentences(path: Path) -> tuple[list[str], tuple[str, ...]]:
    """A case file's sentences, and the variables its setup declares (what they may name)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return [], ()
    if not isinstance(data, dict) or not isinstance(data.get("assert"), dict):
        return [], ()
    setup = data.get("setup") if isinstance(data.get("setup"), dict) else {}
    variables = tuple(
        str(name) for name in [*(setup.get("env_vars_required") or []), *(setup.get("env") or {})]
    )
    found = []
    for polarity in ("required", "forbidden"):
        for entry in data["assert"].get(polarity) or []:
            if not isinstance(entry, dict):
                continue
            sentences = list(entry.get("pass_criteria") or []) + list(
                entry.get("fail_signals") or []
            )
            found += sentences or [str(entry.get("description") or "")]
    return [s for s in found if isinstance(s, str) and s], variables


def _public_sentences(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for case in data.get("evals") or [] if isinstance(data, dict) else []:
        for key in ("expectations", "assertions"):
            found += [s for s in case.get(key) or [] if isinstance(s, str)]
    return found


NAMES_ONLY = skill_vocabulary(None, agent_names())


def _sources() -> dict[str, tuple[list[str], SkillVocabulary | None]]:
    sources: dict[str, tuple[list[str], SkillVocabulary | None]] = {}
    for base in (ROOT / "agentic-evals", ROOT / "tests/fixtures"):
        for path in sorted(base.rglob("*.yaml")):
            sentences, variables = _case_sentences(path)
            if sentences:
                # no skill; the agents' names and the case's variables, as a run hands them
                vocabulary = with_variables(NAMES_ONLY, variables)
                sources[path.relative_to(ROOT).as_posix()] = (sentences, vocabulary)
    if PUBLIC.is_dir():
        for path in sorted(PUBLIC.glob("*/upstream/**/evals*.json")):
            sentences = _public_sentences(path)
            if sentences:
                vocabulary = skill_vocabulary(suite_skill(path), agent_names())
                key = f"public-suites/{path.relative_to(PUBLIC).as_posix()}"
                sources[key] = (sentences, vocabulary)
    return sources


def _entry(sentence: str, vocabulary: SkillVocabulary | None) -> dict[str, Any]:
    compiled = compile_sentence(sentence, vocabulary)
    if compiled is not None:
        return {"rule": compiled.rule, "checks": check_text(compiled.check)}
    refusal = refuse_sentence(sentence, "pass_criteria", vocabulary=vocabulary)
    return {"refused": refusal.why, "instead": refusal.instead}


def _catalogue() -> dict[str, dict[str, dict[str, Any]]]:
    return {
        source: {sentence: _entry(sentence, vocabulary) for sentence in sentences}
        for source, (sentences, vocabulary) in _sources().items()
    }


def test_every_known_sentence_compiles_as_pinned() -> None:
    current = _catalogue()
    if os.environ.get("AGENTIC_EVAL_UPDATE_CATALOGUE"):
        CATALOGUE.write_text(json.dumps(current, indent=1, ensure_ascii=False) + "\n")
    pinned = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    if not PUBLIC.is_dir():  # a checkout without the shared fixtures pins the rest
        pinned = {k: v for k, v in pinned.items() if not k.startswith("public-suites/")}
    changes = [
        f"{source}: {sentence!r}: {pinned.get(source, {}).get(sentence)} -> {now}"
        for source, sentences in current.items()
        for sentence, now in sentences.items()
        if pinned.get(source, {}).get(sentence) != now
    ]
    changes += [f"{source}: gone" for source in pinned if source not in current]
    assert not changes, "\n".join(changes)
