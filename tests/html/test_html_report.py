"""`report.html` and `comparison.html` built from real runs (real Codex, scripted behaviours:
some follow the skill, some are broken, one writes markup into its commands, file names and final
answer), read with an HTML parser and driven in Debian's headless Chromium through Playwright."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from evaluator.artifacts.rundir import RunDir
from evaluator.cli.main import main
from evaluator.html import run_view
from evaluator.html.run_page import render_run_html
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from tests.conftest import ROOT, in_ci
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CASES = (
    "bootstrap-reads-skill-first",
    "routing-rename-table",
    "routing-add-column",
    "routing-backfill",
    "workflow-answer-names-file",
)
# The candidate's behaviours: three broken ones, one that follows the skill, one that injects.
CANDIDATE_BEHAVIORS = (
    "broken/skips-skill.yaml",
    "broken/routes-wrong.yaml",
    "broken/reads-outside.yaml",
    "follows-skill/routing-backfill.yaml",
)
MARKUP_FILE = "notes-<img src=x onerror=window.__injected=1>.md"
ANSWER_SCRIPT = '<script>window.__injected = "answer"</script>'
INJECTING = {
    "name": "injects-markup",
    "description": "Follows the skill, but writes markup into commands, a file name and its answer.",
    "match": {"prompt_contains": "users.name to users.full_name"},
    "steps": [
        {"cmd": "cat .agents/skills/db-migrations/SKILL.md"},
        {"cmd": "cat .agents/skills/db-migrations/references/docs.txt"},
        {"cmd": "sed -n '1,80p' .agents/skills/db-migrations/references/rename-table.md"},
        {"cmd": f"echo '<script>window.__injected = \"command\"</script>' > '{MARKUP_FILE}'"},
        {"cmd": f"cat '{MARKUP_FILE}'"},
        {"cmd": "python3 .agents/skills/db-migrations/scripts/new_migration.py rename_users_name"},
        {
            "patch": "*** Begin Patch\n*** Update File: migrations/0001_rename_users_name.sql\n"
            "@@\n -- up\n+ALTER TABLE users RENAME COLUMN name TO full_name;\n*** End Patch\n"
        },
        {
            "final": "The migration is migrations/0001_rename_users_name.sql. To undo it, run"
            " ALTER TABLE users RENAME COLUMN full_name TO name. "
            + ANSWER_SCRIPT
            + "<img src=x onerror=\"window.__injected='img'\">"
        },
    ],
}


@dataclass(frozen=True)
class Runs:
    base: Path
    candidate: Path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """Two real runs of the same five cases (the base follows the skill), compared."""
    codex_or_skip()
    root = tmp_path_factory.mktemp("html-runs")
    behaviors = root / "candidate-behaviors"
    behaviors.mkdir()
    for name in CANDIDATE_BEHAVIORS:
        shutil.copy(BEHAVIORS / name, behaviors / Path(name).name)
    (behaviors / "injects-markup.yaml").write_text(yaml.safe_dump(INJECTING, sort_keys=False))
    paths = {}
    with scratch_dir() as scratch:
        for run_id, source in (("base", BEHAVIORS / "follows-skill"), ("candidate", behaviors)):
            options = RunOptions(
                repo=ROOT / "agentic-evals",
                behaviors=source,
                cases=CASES,
                runs_dir=root / "runs",
                scratch_root=scratch,
                run_id=run_id,
                workers=2,
            )
            outcome = Run(options, PlainProgress()).execute()
            paths[run_id] = outcome.run_dir.path
            statuses = {r.case_id: r.status for r in outcome.results}
            if run_id == "base":
                assert statuses == dict.fromkeys(CASES, "pass")
            else:
                assert statuses == {
                    "bootstrap-reads-skill-first": "fail",
                    "routing-rename-table": "fail",
                    "routing-add-column": "blocked",
                    "routing-backfill": "pass",
                    "workflow-answer-names-file": "pass",
                }
    with pytest.raises(SystemExit) as info:
        main(["compare", str(paths["base"]), str(paths["candidate"])])
    assert info.value.code == 1  # regressions
    yield Runs(paths["base"], paths["candidate"])


class Page(HTMLParser):
    """Every element with its attributes, every id, and the text, as a browser would parse it."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def tags(self, name: str) -> list[dict[str, str]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    @property
    def ids(self) -> set[str]:
        return {attrs["id"] for _, attrs in self.elements if "id" in attrs}

    def by_id(self, element_id: str) -> dict[str, str]:
        return next(attrs for _, attrs in self.elements if attrs.get("id") == element_id)


def _parse(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def _assert_self_contained(page: Page, directory: Path) -> None:
    """Nothing to fetch, nothing of the agent's that could run, every link resolves."""
    assert len(page.tags("script")) == 1 and "src" not in page.tags("script")[0]
    assert len(page.tags("style")) == 1
    for tag in ("img", "link", "iframe", "object", "embed", "base"):
        assert page.tags(tag) == [], tag
    csp = next(m for m in page.tags("meta") if m.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp["content"] and "unsafe-inline" not in csp["content"]
    for tag, attrs in page.elements:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href")
        if href is None:
            continue
        if href.startswith("#"):
            assert href[1:] in page.ids, href
        else:
            parsed = urlparse(href)
            assert parsed.scheme == "" and parsed.netloc == "" and not href.startswith("/"), href
            assert (directory / parsed.path).is_file(), href


def test_a_run_writes_report_html_self_contained_and_escaped(runs: Runs) -> None:
    raw = (runs.candidate / "report.html").read_text(encoding="utf-8")
    page = _parse(runs.candidate / "report.html")
    _assert_self_contained(page, runs.candidate)
    text = "".join(page.text)
    # The agent's markup is on the page as text, never as markup.
    assert ANSWER_SCRIPT in text and MARKUP_FILE in text
    assert "<script>window.__injected" not in raw and "<img src=x" not in raw
    assert "&lt;script&gt;window.__injected = &#34;answer&#34;&lt;/script&gt;" in raw
    # One row per case, each with its status and suite for the filters.
    rows = [a for a in page.tags("tr") if "data-count" in a]
    assert [(r["data-status"], r["data-suite"]) for r in rows] == [
        ("fail", "bootstrap"),
        ("fail", "routing"),
        ("blocked", "routing"),
        ("pass", "routing"),
        ("pass", "workflow"),
    ]
    # Every verdict's evidence links to its record, which is marked as cited.
    for case_id in CASES:
        result = json.loads((runs.candidate / f"case-results/{case_id}.json").read_text())
        refs = {ref for a in result["assertions"] for ref in a["evidence"]}
        links = {a["title"]: a["href"] for a in page.tags("a") if a.get("class") == "evidence"}
        for ref in refs:
            anchor = links[ref].removeprefix("#")
            assert anchor.startswith(f"{case_id}--attempt-01--msg-"), anchor
            assert "cited" in page.by_id(anchor)["class"].split()
    # The escaping attempt's offending records and paths are listed and marked.
    violations = json.loads(
        (
            runs.candidate / "case-artifacts/routing-add-column/attempts/attempt-02/attempt.json"
        ).read_text()
    )["isolation_report"]["violations"]
    assert "/etc/hostname" in {v["path"] for v in violations} and "/etc/hostname" in text
    for violation in violations:
        record = page.by_id(f"routing-add-column--attempt-02--{violation['ref']}")
        assert "offending" in record["class"].split()


def test_a_long_session_shows_its_cited_and_offending_records_only(
    runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_view, "MAX_RECORDS", 5)
    monkeypatch.setattr(run_view, "MAX_TEXT", 40)
    directory = RunDir(runs.candidate)
    manifest = directory.read_manifest()
    raw = render_run_html(directory, manifest, directory.read_case_results(CASES))
    page = Page(raw)
    records = [a for a in page.tags("tr") if "record" in a.get("class", "").split()]
    kept = {r["id"] for r in records}
    # routing-rename-table cites the read msg-14 and its output msg-16 (which showed the content)
    # only; attempt 02 of routing-add-column offends 7 times.
    assert {k for k in kept if k.startswith("routing-rename-table--")} == {
        "routing-rename-table--attempt-01--msg-14",
        "routing-rename-table--attempt-01--msg-16",
    }
    offending = {r["id"] for r in records if "offending" in r["class"].split()}
    assert {k for k in kept if k.startswith("routing-add-column--attempt-02--")} == {
        k for k in offending if k.startswith("routing-add-column--attempt-02--")
    }
    assert "records not shown (only the cited and offending ones are)" in raw
    assert "more characters in the session file" in raw


def test_report_html_option_rewrites_only_the_html(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    report_html = runs.candidate / "report.html"
    comparison_html = runs.candidate / "comparison.html"
    before = report_html.read_text()
    markdown_mtime = (runs.candidate / "report.md").stat().st_mtime_ns
    report_html.unlink()
    comparison_html.unlink()
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(["report", str(runs.candidate), "--html"])
    assert info.value.code == 0
    assert capsys.readouterr().out.splitlines() == [str(report_html), str(comparison_html)]
    assert report_html.read_text() == before and comparison_html.is_file()
    assert (runs.candidate / "report.md").stat().st_mtime_ns == markdown_mtime
    assert report_html.stat().st_mode & 0o777 == 0o600


def test_a_bad_comparison_json_is_a_located_input_error(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "candidate"
    shutil.copytree(runs.candidate, copy, ignore=shutil.ignore_patterns(".lock"))
    data = json.loads((copy / "comparison.json").read_text())
    data["cases"][0]["classification"] = "worse"
    (copy / "comparison.json").write_text(json.dumps(data))
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(["report", str(copy), "--html"])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "comparison.json" in err and "cases.0.classification" in err


def test_compare_writes_the_side_by_side_comparison_html(runs: Runs) -> None:
    page = _parse(runs.candidate / "comparison.html")
    _assert_self_contained(page, runs.candidate)
    comparison = json.loads((runs.candidate / "comparison.json").read_text())
    rows = [a for a in page.tags("tr") if "data-count" in a]
    assert [r["data-class"] for r in rows] == [c["classification"] for c in comparison["cases"]]
    assert [r["data-class"] for r in rows].count("regression") == 3
    # A flipped entry's base evidence links into the base run's report, to a record there.
    flip = comparison["cases"][0]["assertion_flips"][0]
    assert flip["base_evidence"]
    link = next(a for a in page.tags("a") if a.get("title") == flip["base_evidence"][0])
    path, _, anchor = link["href"].partition("#")
    assert path == "../base/report.html"
    assert "cited" in _parse(runs.base / "report.html").by_id(anchor)["class"].split()


# --- in a real browser ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's chromium, headless, with a fresh profile, driven by Playwright."""
    problem = None
    if not CHROMIUM.is_file():
        problem = f"{CHROMIUM} is not installed (./dev setup installs Debian's chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "playwright is not installed (pip install -e '.[dev]')"
    if problem is not None:
        if in_ci():
            pytest.fail(f"the browser tests must run in CI: {problem}")
        pytest.skip(problem)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@dataclass
class Opened:
    page: Any
    console_errors: list[str]
    requests: list[str]


@contextmanager
def _opened(browser: Any, path: Path) -> Iterator[Opened]:
    """The page at `path`, with what it logged and fetched; it must log no error at all."""
    page = browser.new_page()
    opened = Opened(page, [], [])
    page.on(
        "console", lambda m: opened.console_errors.append(m.text) if m.type == "error" else None
    )
    page.on("pageerror", lambda e: opened.console_errors.append(str(e)))
    page.on("request", lambda r: opened.requests.append(r.url))
    try:
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        yield opened
        assert opened.console_errors == []
    finally:
        page.close()


def _shown(page: Any) -> list[str]:
    rows = page.locator("tr[data-count]")
    return [
        rows.nth(i).locator("td").first.inner_text()
        for i in range(rows.count())
        if rows.nth(i).is_visible()
    ]


@pytest.mark.browser
def test_report_loads_offline_and_its_filters_hide_and_show_rows(
    runs: Runs, browser: Any, tmp_path: Path
) -> None:
    report = runs.candidate / "report.html"
    with _opened(browser, report) as opened:
        page = opened.page
        assert opened.console_errors == []
        assert opened.requests == [report.as_uri()]
        assert _shown(page) == list(CASES)
        page.select_option("#filter-status", "fail")
        assert _shown(page) == ["bootstrap-reads-skill-first", "routing-rename-table"]
        assert page.locator("[data-shown]").inner_text() == "2"
        assert not page.locator("#case-routing-backfill").is_visible()  # its section too
        page.select_option("#filter-suite", "routing")
        assert _shown(page) == ["routing-rename-table"]
        page.select_option("#filter-status", "")
        assert _shown(page) == ["routing-rename-table", "routing-add-column", "routing-backfill"]
        page.select_option("#filter-suite", "")
        assert _shown(page) == list(CASES)
        page.select_option("#filter-status", "blocked")
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


@pytest.mark.browser
def test_an_evidence_link_goes_to_its_record(runs: Runs, browser: Any) -> None:
    with _opened(browser, runs.candidate / "report.html") as opened:
        page = opened.page
        ref = "case-artifacts/routing-rename-table/accepted-session.json#msg-14"
        anchor = "routing-rename-table--attempt-01--msg-14"
        record = page.locator(f"#{anchor}")
        assert not record.is_visible()  # inside its closed transcript
        page.locator(
            f'#routing-rename-table--entry-2 > td:last-child a.evidence[title="{ref}"]'
        ).click()
        assert page.evaluate("location.hash") == f"#{anchor}"
        assert page.evaluate("document.querySelector(':target').id") == anchor
        assert record.is_visible() and "cited" in (record.get_attribute("class") or "")
        assert "add-column.md" in record.inner_text()
        # And back: the record names the entry that cites it.
        record.locator("a.evidence", has_text="forbidden[0]").click()
        assert page.evaluate("location.hash") == "#routing-rename-table--entry-2"


@pytest.mark.browser
def test_markup_from_the_agent_never_runs(runs: Runs, browser: Any) -> None:
    report = runs.candidate / "report.html"
    with _opened(browser, report) as opened:
        page = opened.page
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        assert page.evaluate("typeof window.__injected") == "undefined"
        assert page.evaluate("document.scripts.length") == 1
        assert page.evaluate("document.querySelectorAll('img, [onerror]').length") == 0
        answer = page.locator("#case-workflow-answer-names-file pre.answer").inner_text()
        assert ANSWER_SCRIPT in answer
        transcript = page.locator("#workflow-answer-names-file--attempt-01").inner_text()
        assert MARKUP_FILE in transcript
        assert '<script>window.__injected = "command"</script>' in transcript
        assert opened.requests == [report.as_uri()]


@pytest.mark.browser
def test_the_comparison_view_filters_and_links_into_the_base_report(
    runs: Runs, browser: Any, tmp_path: Path
) -> None:
    comparison = runs.candidate / "comparison.html"
    with _opened(browser, comparison) as opened:
        page = opened.page
        assert opened.console_errors == [] and opened.requests == [comparison.as_uri()]
        assert len(_shown(page)) == 5
        page.select_option("#filter-class", "regression")
        assert [row.split("\n")[0] for row in _shown(page)] == [
            "bootstrap-reads-skill-first",
            "routing-rename-table",
            "routing-add-column",
        ]
        page.screenshot(path=str(tmp_path / "comparison.png"), full_page=True)
        assert (tmp_path / "comparison.png").stat().st_size > 10_000
        ref = "case-artifacts/bootstrap-reads-skill-first/accepted-session.json#msg-4"
        page.locator(f'tr.flip a[title="{ref}"]').first.click()
        page.wait_for_load_state("load")
        assert page.url.startswith((runs.base / "report.html").as_uri())
        target = page.locator("#bootstrap-reads-skill-first--attempt-01--msg-4")
        assert target.is_visible() and "SKILL.md" in target.inner_text()
