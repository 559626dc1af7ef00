"""Trigger sets from a path, in our YAML or in the shapes other tools keep, read unchanged.

- ours (`trigger_suite_id`, `cases: [{id, prompt, expect_trigger}]`), validated like every
  eval-repo file (`contract/triggers.py`);
- skill-creator's list `[{"query": ..., "should_trigger": true}, ...]`, also kept inside a
  mapping under `evals` or `queries` beside notes (public skills do);
- `{"skill_name": ..., "should_trigger": [prompts], "should_not_trigger": [prompts]}`;
- CSV with the header `id,should_trigger,prompt` (any column order, extra columns ignored).

Cases without an id of their own are numbered in file order (`q-01`, `should-01`,
`should-not-01`). Bad input is one located `InputError` (file, line, field).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evaluator.contract.parse import did_you_mean, type_name, unknown_key_message
from evaluator.contract.triggers import TriggerCase
from evaluator.errors import InputError
from evaluator.repo.documents import Diagnostics, load_document
from evaluator.safepath import id_problem
from evaluator.yamlsource import YamlDocument, load_yaml, read_text

TriggerFormat = Literal["agentic-eval", "skill-creator", "should-lists", "csv"]
CSV_COLUMNS = ("id", "should_trigger", "prompt")
_TRUE = ("true", "yes", "1", "y", "t")
_FALSE = ("false", "no", "0", "n", "f")


@dataclass(frozen=True)
class TriggerSet:
    path: Path
    format: TriggerFormat
    cases: list[TriggerCase]
    skill: str | None = None  # the skill the file names (`skill`, `skill_name`), if any
    attempts: int | None = None  # K, when the file sets it


def load_trigger_set(path: Path) -> TriggerSet:
    """The trigger cases in `path`, whatever its shape (told by content; `.csv` by name): at
    least one, and no prompt expected both to trigger and not to."""
    loaded = _load_any(path)
    if not loaded.cases:
        raise InputError("no trigger cases in this file", path=path)
    expected: dict[str, bool] = {}
    for case in loaded.cases:
        key = " ".join(case.prompt.split())
        if expected.setdefault(key, case.expect_trigger) != case.expect_trigger:
            raise InputError(
                f"case {case.id!r}: the same prompt is listed as should trigger and as should"
                f" not: {case.prompt[:80]!r}",
                path=path,
                line=_last_line_holding(path, case.prompt),
                field="should_trigger",
            )
    return loaded


def _last_line_holding(path: Path, prompt: str) -> int | None:
    """The line where the prompt's first line last appears as written: the later of the two
    listings, which the loaders, one per shape, do not keep; None when it is not there verbatim
    (escaped in JSON, say)."""
    lines = prompt.strip().splitlines()
    needle = lines[0].strip()[:60] if lines else ""
    if not needle:
        return None
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return None
    found = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    return found[-1] if found else None


def _load_any(path: Path) -> TriggerSet:
    if path.suffix.lower() == ".csv":
        return _load_csv(path)
    doc = _load_structured(path)
    data = doc.data
    if isinstance(data, list):
        return _load_query_list(doc)
    if isinstance(data, dict) and ("should_trigger" in data or "should_not_trigger" in data):
        return _load_should_lists(doc)
    wrapper = wrapped_queries(data)
    if wrapper is not None:
        return _load_wrapped_queries(doc, wrapper)
    if (
        isinstance(data, dict)
        and "trigger_suite_id" not in data
        and _query_items(data.get("cases"))
    ):
        # Another tool's suite under our key: our schema's complaints (`version`, `query`) would
        # not say what the file is.
        raise doc.error(
            ("cases",),
            "skill-creator queries ({query, should_trigger}) under `cases`, without our"
            " `trigger_suite_id`: give one skill's queries as a plain list (or under `queries`)",
        )
    if isinstance(data, dict) and ("trigger_suite_id" in data or "cases" in data):
        return _load_suite(path)
    raise doc.error(
        (),
        f"not a trigger set: expected our trigger suite (`trigger_suite_id`, `cases`), a list of"
        f" {{query, should_trigger}}, or `should_trigger`/`should_not_trigger` lists; got"
        f" {_describe(data)}",
    )


# Public skills keep skill-creator's query list inside a mapping, beside notes of their own
# (`{"skill_name": ..., "evals": [...]}`, `{"notes": ..., "queries": [...]}`).
QUERY_LIST_KEYS = ("evals", "queries")


def wrapped_queries(data: Any) -> str | None:
    """The key of a mapping that holds skill-creator's query list (items with `query` and
    `should_trigger`), or None; our own suite (`cases` of `prompt`/`expect_trigger`) is not one."""
    if not isinstance(data, dict) or "trigger_suite_id" in data:
        return None
    return next((key for key in QUERY_LIST_KEYS if _query_items(data.get(key))), None)


def _query_items(items: Any) -> bool:
    return (
        isinstance(items, list)
        and bool(items)
        and all(isinstance(i, dict) and "query" in i and "should_trigger" in i for i in items)
    )


def _describe(data: Any) -> str:
    if isinstance(data, dict):
        keys = ", ".join(map(str, list(data)[:5]))
        return f"a mapping with keys {keys}" if keys else "an empty mapping"
    return type_name(data)


def _load_structured(path: Path) -> YamlDocument:
    """JSON or YAML, with every value's position. JSON's own parser speaks first for a `.json`
    file, so its syntax errors are JSON's; positions come from the YAML reader (JSON is YAML)."""
    if path.suffix.lower() == ".json":
        text = read_text(path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, col=exc.colno
            ) from None
        try:
            return load_yaml(path)
        except InputError:
            return YamlDocument(path=path, data=data)  # valid JSON YAML cannot read: no positions
    return load_yaml(path)


def _load_suite(path: Path) -> TriggerSet:
    diagnostics = Diagnostics()
    loaded = load_document(path, "trigger-suite", diagnostics)
    if loaded is None or diagnostics.errors:
        raise diagnostics.errors[0]
    suite = loaded.model
    return TriggerSet(path, "agentic-eval", list(suite.cases), suite.skill, suite.attempts)


_QUERY_KEYS = ("query", "should_trigger", "id")
_SHOULD_LIST_KEYS = ("skill_name", "should_trigger", "should_not_trigger")


def _refuse_typos(
    doc: YamlDocument, at: tuple[int | str, ...], data: dict[Any, Any], known: tuple[str, ...]
) -> None:
    """A key close to a known one is a typo that would silently drop prompts or fail later with
    a misleading "missing" message; other keys (notes other tools add) are left alone."""
    for key in data:
        if isinstance(key, str) and key not in known and did_you_mean(key, known):
            raise doc.key_error((*at, key), unknown_key_message(key, known))


def _load_query_list(doc: YamlDocument) -> TriggerSet:
    return TriggerSet(doc.path, "skill-creator", _query_cases(doc, (), doc.data))


def _load_wrapped_queries(doc: YamlDocument, key: str) -> TriggerSet:
    data: dict[str, Any] = doc.data
    _refuse_typos(doc, (), data, (*_SHOULD_LIST_KEYS, *QUERY_LIST_KEYS))
    skill = data.get("skill_name")
    if skill is not None and not (isinstance(skill, str) and skill.strip()):
        raise doc.error(("skill_name",), f"expected a skill name, got {type_name(skill)}")
    return TriggerSet(doc.path, "skill-creator", _query_cases(doc, (key,), data[key]), skill)


def _query_cases(
    doc: YamlDocument, at: tuple[str | int, ...], items: list[Any]
) -> list[TriggerCase]:
    cases: list[TriggerCase] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise doc.error(
                (*at, index), f"expected a mapping {{query, should_trigger}}, got {type_name(item)}"
            )
        _refuse_typos(doc, (*at, index), item, _QUERY_KEYS)
        query = _prompt(doc, (*at, index, "query"), item.get("query"))
        expect = item.get("should_trigger")
        if not isinstance(expect, bool):
            raise doc.error((*at, index, "should_trigger"), _bool_problem(expect))
        raw_id = item.get("id")
        case_id = (
            _own_id(doc, (*at, index, "id"), raw_id) if raw_id is not None else f"q-{index + 1:02d}"
        )
        cases.append(TriggerCase(id=case_id, prompt=query, expect_trigger=expect))
    return _unique(doc, at, cases)


def _load_should_lists(doc: YamlDocument) -> TriggerSet:
    data: dict[str, Any] = doc.data
    _refuse_typos(doc, (), data, _SHOULD_LIST_KEYS)
    skill = data.get("skill_name")
    if skill is not None and not (isinstance(skill, str) and skill.strip()):
        raise doc.error(("skill_name",), f"expected a skill name, got {type_name(skill)}")
    cases: list[TriggerCase] = []
    for key, expect, prefix in (
        ("should_trigger", True, "should"),
        ("should_not_trigger", False, "should-not"),
    ):
        prompts = data.get(key, [])
        if not isinstance(prompts, list):
            raise doc.error((key,), f"expected a list of prompts, got {type_name(prompts)}")
        for index, prompt in enumerate(prompts):
            text = _prompt(doc, (key, index), prompt)
            cases.append(
                TriggerCase(id=f"{prefix}-{index + 1:02d}", prompt=text, expect_trigger=expect)
            )
    if not cases:
        raise doc.error(("should_trigger",), "no prompts in should_trigger or should_not_trigger")
    return TriggerSet(doc.path, "should-lists", cases, skill)


def _load_csv(path: Path) -> TriggerSet:
    text = read_text(path).removeprefix("\ufeff")  # spreadsheets write a byte-order mark
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("file is empty", path=path, line=1) from None
    except csv.Error as exc:
        raise InputError(f"invalid CSV: {exc}", path=path, line=reader.line_num) from None
    columns = [name.strip().lower() for name in header]
    for name in CSV_COLUMNS:
        if name not in columns:
            raise InputError(
                f"the header lacks the column {name!r} (expected {','.join(CSV_COLUMNS)})",
                path=path,
                line=1,
                field=name,
            )
    at = {name: columns.index(name) for name in CSV_COLUMNS}
    cases: list[TriggerCase] = []
    lines: dict[str, int] = {}
    while True:
        line = reader.line_num + 1  # where the row starts (a quoted prompt may span lines)
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"invalid CSV: {exc}", path=path, line=line) from None
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(columns):
            missing = next(n for n in CSV_COLUMNS if at[n] >= len(row))
            raise InputError(
                f"the row has {len(row)} of {len(columns)} columns",
                path=path,
                line=line,
                field=missing,
            )
        case_id = row[at["id"]].strip()
        problem = id_problem(case_id) if case_id else "must not be empty"
        if problem:
            raise InputError(problem, path=path, line=line, field="id")
        if case_id in lines:
            raise InputError(
                f"duplicate id {case_id!r} (first on line {lines[case_id]})",
                path=path,
                line=line,
                field="id",
            )
        lines[case_id] = line
        flag = row[at["should_trigger"]].strip().lower()
        if flag not in _TRUE + _FALSE:
            raise InputError(
                f"expected true or false, got {row[at['should_trigger']]!r}",
                path=path,
                line=line,
                field="should_trigger",
            )
        prompt = row[at["prompt"]]
        if not prompt.strip():
            raise InputError("the prompt is empty", path=path, line=line, field="prompt")
        cases.append(TriggerCase(id=case_id, prompt=prompt, expect_trigger=flag in _TRUE))
    if not cases:
        raise InputError("no trigger cases below the header", path=path, line=1)
    return TriggerSet(path, "csv", cases)


def _prompt(doc: YamlDocument, key: tuple[str | int, ...], value: Any) -> str:
    if not isinstance(value, str):
        if value is None and not isinstance(key[-1], int):
            raise doc.error(key, "required field is missing")
        raise doc.error(key, f"expected a prompt (text), got {type_name(value)}")
    if not value.strip():
        raise doc.error(key, "the prompt is empty")
    return value


def _bool_problem(value: Any) -> str:
    if value is None:
        return "required field is missing"
    return f"expected true or false, got {type_name(value)}"


def _own_id(doc: YamlDocument, key: tuple[str | int, ...], value: Any) -> str:
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    problem = id_problem(text) if text else f"expected an id, got {type_name(value)}"
    if problem:
        raise doc.error(key, problem)
    return text


def _unique(
    doc: YamlDocument, at: tuple[str | int, ...], cases: list[TriggerCase]
) -> list[TriggerCase]:
    seen: set[str] = set()
    for index, case in enumerate(cases):
        if case.id in seen:
            raise doc.error((*at, index, "id"), f"duplicate id {case.id!r}")
        seen.add(case.id)
    return cases
