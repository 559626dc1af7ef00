"""The model grader: the `ModelGrader` the judge chain calls for entries no rule could decide.

Per grade() call: one evidence bundle; per item and vote, one judge call (in parallel, at most
`concurrency` at once across all grade() calls, answered from the cache when the same question
was asked about the same evidence); every answer verified; a strict majority of the votes
decides, otherwise `cannot-judge`. Each item's judge record goes to `record_dir`.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError
from evaluator.evidence.records import SessionEvidence
from evaluator.grader.base import EndpointJudgeBackend, JudgeBackend, JudgeCall, JudgeReply
from evaluator.grader.bundle import Bundle, build_bundle, remove_bundle
from evaluator.grader.cache import ReplyCache, cache_key
from evaluator.grader.prompt import ANSWER_SCHEMA, SCHEMA_HASH, judge_prompt, text_hash
from evaluator.grader.reach import refused
from evaluator.grader.scoring import (
    ScoreVerification,
    answer_schema,
    decide,
    schema_hash,
    scoring_prompt,
    verify_score,
)
from evaluator.grader.verify import Verification, verify_answer
from evaluator.judge.grading import GradeItem, GradeResult, GradeVerdict
from evaluator.judge.scoring import DimensionItem, DimensionScore, VoteScore

DEFAULT_SCRATCH = Path("/var/tmp/agentic-eval/judge")
RECORD_FORMAT = "agentic-eval/judge-record@1"
SCORE_RECORD_FORMAT = "agentic-eval/rubric-score-record@1"


@dataclass(frozen=True)
class GraderSettings:
    votes: int = 1
    concurrency: int = 2
    timeout_s: float = 180.0
    scratch_root: Path = DEFAULT_SCRATCH
    cache_dir: Path | None = None  # default: `<record_dir>/cache`

    def __post_init__(self) -> None:
        if self.votes < 1 or self.votes % 2 == 0:
            raise ValueError("the number of judge votes must be odd (1, 3, 5, ...)")
        if self.concurrency < 1:
            raise ValueError("judge concurrency must be at least 1")


@dataclass
class Vote:
    number: int
    prompt_hash: str
    cache_key: str
    cached: bool
    raw: str | None
    error: str | None
    verification: Verification

    @property
    def verdict(self) -> GradeVerdict:
        return self.verification.verdict

    def problem(self) -> str | None:
        if self.error:
            return self.error
        if self.verification.problems:
            return "; ".join(self.verification.problems)
        return None


class Grader:
    """Implements `evaluator.judge.grading.ModelGrader` with a judge backend."""

    def __init__(
        self,
        backend: JudgeBackend,
        settings: GraderSettings | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.backend = backend
        self.settings = settings or GraderSettings()
        self._on_close = on_close
        # One bound for every grade() call on this grader: the pipeline grades attempts in
        # parallel, and each judge call is a whole codex process.
        self._slots = threading.BoundedSemaphore(self.settings.concurrency)

    def credentials(self) -> dict[str, str]:
        return self.backend.credentials()

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def grade(
        self,
        items: list[GradeItem],
        evidence: SessionEvidence,
        workspace: Path,
        record_dir: Path,
    ) -> list[GradeResult]:
        if not items:
            return []
        bundle_dir = self.settings.scratch_root / f"bundle-{uuid.uuid4().hex[:12]}"
        try:
            record_dir.mkdir(parents=True, exist_ok=True)
            self.settings.scratch_root.mkdir(mode=0o700, parents=True, exist_ok=True)
            bundle = build_bundle(items, evidence, workspace, bundle_dir)
        except OSError as exc:
            remove_bundle(bundle_dir)
            why = f"the judge's evidence bundle could not be built: {exc}"
            return [GradeResult(i.entry_id, "cannot-judge", why, (), None, why) for i in items]
        try:
            cache = ReplyCache(self.settings.cache_dir or record_dir / "cache")
            jobs = [(i, v) for i in items for v in range(1, self.settings.votes + 1)]
            with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
                votes = list(
                    pool.map(lambda job: self._vote(job[0], job[1], bundle, workspace, cache), jobs)
                )
        finally:
            remove_bundle(bundle_dir)
        results = []
        for index, item in enumerate(items):
            mine = votes[index * self.settings.votes : (index + 1) * self.settings.votes]
            results.append(self._decide(item, mine, bundle, workspace, record_dir))
        return results

    def _vote(
        self, item: GradeItem, number: int, bundle: Bundle, workspace: Path, cache: ReplyCache
    ) -> tuple[str, Vote]:
        prompt = judge_prompt(item, workspace, number, self.settings.votes)
        asked = self._cached_ask(prompt, bundle, cache, ANSWER_SCHEMA, SCHEMA_HASH)
        prompt_hash, key, cached, raw, error = asked
        if raw is None:
            verification = Verification("cannot-judge", None, "", (), [])
        else:
            verification = verify_answer(raw, item, bundle.records, str(workspace))
        return prompt, Vote(number, prompt_hash, key, cached, raw, error, verification)

    def _cached_ask(
        self,
        prompt: str,
        bundle: Bundle,
        cache: ReplyCache,
        schema: dict[str, Any],
        schema_digest: str,
    ) -> tuple[str, str, bool, str | None, str | None]:
        """The reply to `prompt` on this bundle, from the cache or the model (and then cached):
        (prompt hash, cache key, whether cached, raw reply or None, the error if none)."""
        prompt_hash = text_hash(prompt)
        key = cache_key(
            backend=self.backend.name,
            model=self.backend.model,
            prompt_hash=prompt_hash,
            evidence_hash=bundle.evidence_hash,
            schema_hash=schema_digest,
        )
        raw = cache.get(key)
        if raw is not None:
            return prompt_hash, key, True, raw, None
        reply = self._ask(prompt, bundle, schema)
        if reply.raw is not None:
            about = {"model": self.backend.model, "prompt_hash": prompt_hash}
            cache.put(key, reply.raw, {**about, "evidence_hash": bundle.evidence_hash})
        return prompt_hash, key, False, reply.raw, reply.error

    def _ask(
        self, prompt: str, bundle: Bundle, schema: dict[str, Any] = ANSWER_SCHEMA
    ) -> JudgeReply:
        if isinstance(self.backend, EndpointJudgeBackend):
            unreachable = refused(self.backend.endpoint.base_url)
            if unreachable is not None:
                return JudgeReply(None, unreachable)
        scratch = self.settings.scratch_root / f"call-{uuid.uuid4().hex[:12]}"
        try:
            with self._slots:
                return self.backend.ask(
                    JudgeCall(prompt, schema, bundle.path, scratch, self.settings.timeout_s)
                )
        except (OSError, EvalError) as exc:
            return JudgeReply(None, f"judge call failed: {exc}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _decide(
        self,
        item: GradeItem,
        votes: list[tuple[str, Vote]],
        bundle: Bundle,
        workspace: Path,
        record_dir: Path,
    ) -> GradeResult:
        ballots = [vote for _, vote in votes]
        counts = Counter(vote.verdict for vote in ballots)
        top, top_count = counts.most_common(1)[0]
        winner: GradeVerdict = top if top_count * 2 > len(ballots) else "cannot-judge"
        chosen = next((v for v in ballots if v.verdict == winner and v.raw is not None), None)
        notes = []
        if len(ballots) > 1:
            split = ", ".join(f"{verdict} {counts[verdict]}" for verdict in sorted(counts))
            agreement = "unanimous" if len(counts) == 1 else "split"
            majority = "" if top_count * 2 > len(ballots) else "; no majority"
            notes.append(f"{len(ballots)} votes, {agreement}: {split}{majority}")
        for vote in ballots:
            problem = vote.problem()
            if problem:
                label = f"vote {vote.number}: " if len(ballots) > 1 else ""
                notes.append(f"{label}{problem}")
        refs: tuple[str, ...] = ()
        if chosen is not None and (winner != "cannot-judge" or chosen.verification.ok):
            rationale = chosen.verification.rationale
            refs = chosen.verification.refs
        else:
            rationale = "no verified verdict: the judge's answers were discarded or missing"
        path = record_dir / f"{_slug(item.entry_id)}.{bundle.evidence_hash[:12]}.json"
        detail = "; ".join(notes) or None
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "entry_id": item.entry_id,
            "polarity": item.polarity,
            "text": item.text,
            "evidence_scope": item.evidence_scope,
            "backend": self.backend.name,
            "model": self.backend.model,
            "evidence_hash": bundle.evidence_hash,
            "bundle_files": list(bundle.files),
            "workspace": str(workspace),
            "verdict": winner,
            "rationale": rationale,
            "refs": list(refs),
            "detail": detail,
            "votes": [
                {
                    "vote": vote.number,
                    "prompt_hash": vote.prompt_hash,
                    "prompt": prompt,
                    "cache_key": vote.cache_key,
                    "cached": vote.cached,
                    "raw_reply": vote.raw,
                    "error": vote.error,
                    "verification": {
                        **asdict(vote.verification),
                        "ok": vote.raw is not None and vote.verification.ok,
                    },
                }
                for prompt, vote in votes
            ],
        }
        relative: str | None = _relative_to_run(path)
        try:
            temp = path.with_name(f".{path.name}.tmp")
            temp.write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
            temp.replace(path)
        except OSError as exc:
            relative = None
            detail = f"{detail + '; ' if detail else ''}judge record not written: {exc}"
        return GradeResult(item.entry_id, winner, rationale, tuple(refs), relative, detail)

    def score(
        self,
        dimensions: list[DimensionItem],
        evidence: SessionEvidence,
        workspace: Path,
        record_dir: Path,
        files_root: Path | None = None,
    ) -> list[DimensionScore]:
        """Implements `evaluator.judge.scoring.RubricScorer`: per dimension and vote one judge
        call on one evidence bundle, each answer verified (`scoring.verify_score`)."""
        if not dimensions:
            return []
        bundle_dir = self.settings.scratch_root / f"bundle-{uuid.uuid4().hex[:12]}"
        try:
            record_dir.mkdir(parents=True, exist_ok=True)
            self.settings.scratch_root.mkdir(mode=0o700, parents=True, exist_ok=True)
            bundle = build_bundle([], evidence, files_root or workspace, bundle_dir)
        except OSError as exc:
            remove_bundle(bundle_dir)
            why = f"the judge's evidence bundle could not be built: {exc}"
            return [DimensionScore(d.name, None, None, (), why, (), None, why) for d in dimensions]
        try:
            cache = ReplyCache(self.settings.cache_dir or record_dir / "cache")
            jobs = [(d, v) for d in dimensions for v in range(1, self.settings.votes + 1)]
            with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
                answers = list(
                    pool.map(
                        lambda job: self._score_vote(job[0], job[1], bundle, workspace, cache), jobs
                    )
                )
        finally:
            remove_bundle(bundle_dir)
        votes = self.settings.votes
        return [
            self._record_score(
                d, answers[i * votes : (i + 1) * votes], bundle, workspace, record_dir
            )
            for i, d in enumerate(dimensions)
        ]

    def _score_vote(
        self, item: DimensionItem, number: int, bundle: Bundle, workspace: Path, cache: ReplyCache
    ) -> dict[str, Any]:
        prompt = scoring_prompt(item, workspace, number, self.settings.votes)
        asked = self._cached_ask(prompt, bundle, cache, answer_schema(item), schema_hash(item))
        prompt_hash, key, cached, raw, error = asked
        if raw is None:
            verification = ScoreVerification(None, None, "", (), [error or "no reply"])
        else:
            verification = verify_score(raw, item, bundle.records, str(workspace))
        return {
            "vote": number,
            "prompt_hash": prompt_hash,
            "prompt": prompt,
            "cache_key": key,
            "cached": cached,
            "raw_reply": raw,
            "error": error,
            "verification": {**asdict(verification), "ok": verification.ok},
        }

    def _record_score(
        self,
        item: DimensionItem,
        answers: list[dict[str, Any]],
        bundle: Bundle,
        workspace: Path,
        record_dir: Path,
    ) -> DimensionScore:
        ballots = [
            VoteScore(
                a["vote"],
                a["verification"]["score"],
                "; ".join(a["verification"]["problems"]) or None,
            )
            for a in answers
        ]
        decision = decide(item, ballots)
        chosen = next(
            (
                a
                for a in answers
                if decision.score is not None and a["verification"]["score"] == decision.score
            ),
            None,
        )
        rationale = (
            chosen["verification"]["rationale"]
            if chosen
            else "no verified score: the judge's answers were discarded or missing"
        )
        refs = tuple(chosen["verification"]["refs"]) if chosen else ()
        path = record_dir / f"{_slug(item.entry_id)}.{bundle.evidence_hash[:12]}.json"
        record: dict[str, Any] = {
            "format": SCORE_RECORD_FORMAT,
            "rubric_id": item.rubric_id,
            "dimension": item.name,
            "description": item.description,
            "scale": list(item.scale),
            "anchors": dict(item.anchors),
            "backend": self.backend.name,
            "model": self.backend.model,
            "evidence_hash": bundle.evidence_hash,
            "bundle_files": list(bundle.files),
            "workspace": str(workspace),
            "score": decision.score,
            "value": decision.value,
            "rationale": rationale,
            "refs": list(refs),
            "note": decision.note,
            "votes": answers,
        }
        relative: str | None = _relative_to_run(path)
        note = decision.note
        try:
            temp = path.with_name(f".{path.name}.tmp")
            temp.write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
            temp.replace(path)
        except OSError as exc:
            relative = None
            note = f"{note + '; ' if note else ''}judge record not written: {exc}"
        return DimensionScore(
            item.name,
            decision.score,
            decision.value,
            tuple(ballots),
            rationale,
            refs,
            relative,
            note,
        )


def _slug(entry_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", entry_id).strip("-") or "entry"


def _relative_to_run(path: Path) -> str:
    """`case-artifacts/<case>/attempts/attempt-NN/judge/...` when the record sits in a run directory."""
    for parent in path.parents:
        if parent.name == "case-artifacts":
            return str(path.relative_to(parent.parent))
    return str(path)
