"""Forms of the criteria grammar for held-out prose (issue 23): the agent as "the coding agent" or "it",
whose answer, synonyms of the verbs, "avoids", "prior to", "only after", "before any other
file", "neither ... nor", a second claim joined by "and", "but not" or "without", and states of
the workspace ("does not exist", "is left unchanged", "exists and mentions"). Each with near
misses that must refuse, and judged on hand-built evidence, so what they mean is tested too."""

from __future__ import annotations

import pytest

from evaluator.adapters import agent_names
from evaluator.contract.models import AllOfCheck, ScriptRanCheck
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.grammar import _with_argument
from evaluator.judge.skill_vocabulary import SkillVocabulary, skill_vocabulary
from tests.judge.test_criteria_constructions import REFS, SKILL, _verdict


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        ("The AI assistant executed `x.sh`.", "script_ran(path='x.sh')"),
        ("It looked at `a.md`.", "file_read(path='a.md')"),
        ("The coding agent viewed `a.md`.", "file_read(path='a.md')"),
        ("`out.json` was generated.", "file_written(path='out.json')"),
        ("The assistant produced `out.json`.", "file_written(path='out.json')"),
        ("The model avoids reading `a.md`.", "not file_read(path='a.md')"),
        ("The agent should avoid opening `a.md`.", "not file_read(path='a.md')"),
        ("The assistant's answer mentions `x`.", "final_answer_contains(text='x')"),
        ("Its final message mentions `x`.", "final_answer_contains(text='x')"),
        ("Mentions `x` in the final answer.", "final_answer_contains(text='x')"),
        ("In its final answer, the assistant mentions `x`.", "final_answer_contains(text='x')"),
        ("The tool calls show a read of `a.md`.", "file_read(path='a.md')"),
        ("There is evidence that the agent read `a.md`.", "file_read(path='a.md')"),
        ("The session log contains a run of `x.sh`.", "script_ran(path='x.sh')"),
        ("A command invoking `x.sh` appears in the session.", "script_ran(path='x.sh')"),
        ("The session shows `x.sh` being executed.", "script_ran(path='x.sh')"),
        ("`a.md` was read prior to `b.md`.", "read_before(first='a.md' then='b.md')"),
        ("Opens `a.md` before any other file.", "read_before(first='a.md' then='*')"),
        ("`a.md` is the first file the agent reads.", "read_before(first='a.md' then='*')"),
        (
            "The agent opened `b.md` only after reading `a.md`.",
            "all_of[read_before(first='a.md' then='b.md'), file_read(path='b.md')]",
        ),
        (
            "`a.md` and `b.md` were both read.",
            "all_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        (
            "Read all of `a.md`, `b.md` and `c.md`.",
            "all_of[file_read(path='a.md'), file_read(path='b.md'), file_read(path='c.md')]",
        ),
        ("The agent read some file inside `docs/`.", "file_read(path='docs/*')"),
        ("The agent did not write anything inside `vendor/`.", "not file_written(path='vendor/*')"),
        (
            "Neither `a.md` nor `b.md` is read.",
            "not any_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        (
            "The final answer mentions neither `x` nor `y`.",
            "not any_of[final_answer_contains(text='x'), final_answer_contains(text='y')]",
        ),
        (
            "The agent read `a.md` and ran `x.sh`.",
            "all_of[file_read(path='a.md'), script_ran(path='x.sh')]",
        ),
        (
            "The agent reads `a.md` without opening `b.md`.",
            "all_of[file_read(path='a.md'), not file_read(path='b.md')]",
        ),
        (
            "The final answer mentions `x` but not `y`.",
            "all_of[final_answer_contains(text='x'), not final_answer_contains(text='y')]",
        ),
        ("`build/` does not exist in the workspace.", "not workspace_file_exists(path='build/*')"),
        (
            "`app.py` does not contain `print(`.",
            "not workspace_file_contains(path='app.py' text='print(')",
        ),
        ("`README.md` is left unchanged.", "not file_written(path='README.md')"),
        ("Output file `r.md` exists.", "workspace_file_exists(path='r.md')"),
        (
            "Output file `r.md` exists and mentions `Total`.",
            "all_of[workspace_file_exists(path='r.md'),"
            " workspace_file_contains(path='r.md' text='Total')]",
        ),
        (
            "The agent created `r.md` and it mentions `Total`.",
            "all_of[file_written(path='r.md'), workspace_file_contains(path='r.md' text='Total')]",
        ),
    ],
)
def test_a_held_out_form_compiles(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        # a denied order: not in that order, or not at all?
        ("The agent did not read `b.md` before `a.md`.", "stopped at 'before'"),
        ("The agent never opened `b.md` after `a.md`.", "stopped at 'after'"),
        # "all of" a folder or a glob: every file there, which one match does not show
        ("The agent read all of the `references/` files.", "stopped at 'all'"),
        ("The agent read both `docs/*.md` and `a.md`.", "stopped at '*'"),
        # a second act no rule sees, an order across acts, an outcome after a joined claim
        ("The agent ran `pytest` and fixed the failures.", "stopped at 'and'"),
        ("The agent opened `a.md` and then ran `x.sh`.", "stopped at 'ran'"),
        ("The agent ran `make` and it passed.", "stopped at 'and'"),
        ("The agent read `a.md` and ran `x.sh` successfully.", "stopped at 'successfully'"),
        # under a denial, which part does it cover?
        ("The agent never read `a.md` and ran `x.sh`.", "stopped at 'and'"),
        ("The agent ran `a` but never `b` and `c`.", "stopped at 'and'"),
        ("The agent reads `a.md` but not `b.md` first.", "stopped at 'but'"),
        ("The agent ran `make` without `sudo`.", "stopped at 'without'"),
        ("The agent ran `make` without running it twice.", "stopped at 'it'"),
        # "neither" twice denied, or with an order
        ("The agent never read neither `a.md` nor `b.md`.", "stopped at 'neither'"),
        ("The agent read `a.md` nor `b.md`.", "stopped at 'nor'"),
        # "it" beside another part's literal; a reply "it" makes
        ("Either the agent read `a.md`, or it ran `x`.", "stopped at 'it'"),
        ("It mentions `x`.", "stopped at 'mentions'"),
        # a state with a judgement, a write of what the answer means
        ("`out.csv` exists and is sorted.", "stopped at 'and'"),
        ("`config.json` is left mostly unchanged.", "stopped at 'left'"),
        ("The model saved the results to `results.csv`.", "stopped at 'results'"),
        ("`index.html` does not contain a valid doctype.", "stopped at 'valid'"),
        ("`x.sh` appears in the session.", "stopped at 'appears'"),
        ("The model never touched `secrets/`.", "stopped at 'touched'"),
    ],
)
def test_a_held_out_near_miss_refuses(sentence: str, why: str) -> None:
    assert compile_sentence(sentence) is None
    assert why in refuse_sentence(sentence, "pass_criteria").why


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        # SKILL.md read at step 3, references/a.md at 5, docs.txt at 7; `python3 tool.py run`
        # ran at 9 and wrote out/x.txt; the answer: "Done: see migrations/0001_x.sql"
        (f"The assistant read `{REFS}/a.md` without opening `{REFS}/b.md`.", "pass"),
        (f"The assistant read `{REFS}/a.md` without opening `{REFS}/docs.txt`.", "fail"),
        (f"Neither `{REFS}/b.md` nor `{REFS}/c.md` is read.", "pass"),
        (f"Neither `{REFS}/b.md` nor `{REFS}/a.md` is read.", "fail"),
        (f"`{REFS}/a.md` was read prior to `{REFS}/docs.txt`.", "pass"),
        (f"`{REFS}/docs.txt` was read prior to `{REFS}/a.md`.", "fail"),
        (f"`{SKILL}/SKILL.md` is the first file the agent reads.", "pass"),
        (f"`{REFS}/a.md` is the first file the agent reads.", "fail"),
        (f"It opened `{REFS}/docs.txt` only after reading `{REFS}/a.md`.", "pass"),
        ("The agent ran `python3 tool.py run` and wrote `out/x.txt`.", "pass"),
        ("The agent ran `python3 tool.py run` but never `rm`.", "pass"),
        ("The agent ran `python3 tool.py run` but never `python3`.", "fail"),
        ("`out/y.txt` is left unchanged.", "pass"),
        ("`out/x.txt` is left unchanged.", "fail"),
        ("The final answer mentions `migrations` but not `rollback`.", "pass"),
        ("The final answer mentions neither `migrations` nor `rollback`.", "fail"),
    ],
)
def test_a_held_out_form_judges_what_it_says(sentence: str, verdict: str) -> None:
    assert _verdict(sentence) == verdict


# --------------------------------------------------------------------------- round 4 forms
# The agents by their products' names (handed in as data: only adapters name agents), "kicked
# off", "a link to", the passive "looked at", a long option without backticks, and a command
# described with the options that define its modifier; each with look-alikes that refuse.

NAMES = skill_vocabulary(None, agent_names())


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        ("Claude Code opened `notes/plan.md`.", "file_read(path='notes/plan.md')"),
        ("Gemini CLI never executed `cleanup.sh`.", "not script_ran(path='cleanup.sh')"),
        ("The trace shows that Codex loaded `conf/app.toml`.", "file_read(path='conf/app.toml')"),
        ("Codex's reply includes `DONE`.", "final_answer_contains(text='DONE')"),
        ("The agent kicked off `deploy.sh`.", "script_ran(path='deploy.sh')"),
        ("`seed.sh` was kicked off by the agent.", "script_ran(path='seed.sh')"),
        (
            "The reply includes a link to `https://example.org/guide`.",
            "final_answer_contains(text='https://example.org/guide')",
        ),
        (
            "`intro.md` was looked at before `api.md`.",
            "read_before(first='intro.md' then='api.md')",
        ),
        ("`secrets.env` was never looked at.", "not file_read(path='secrets.env')"),
        ("The final answer names --dry-run.", "final_answer_contains(text='--dry-run')"),
        # no write at all: participles naming a creation, a change and a deletion, or the
        # workspace unchanged
        (
            "No file in the workspace was created, edited or removed.",
            "not file_written(path='*')",
        ),
        ("No files are written or deleted by the agent.", "not file_written(path='*')"),
        ("The workspace stays unchanged.", "not file_written(path='*')"),
    ],
)
def test_a_round_four_form_compiles(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence, NAMES)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria", vocabulary=NAMES).why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # the option defines the modifier: the command named, with it on one of its lines
        ("The agent ran a dated `report.py` call (--since).", ("report.py", ("--since",))),
        (
            "It used a quiet cached `fetch.sh` invocation (--quiet and --cached).",
            ("fetch.sh", ("--quiet", "--cached")),
        ),
        ("The agent ran `lint.py` with --fix.", ("lint.py", ("--fix",))),
    ],
)
def test_an_option_without_backticks_is_exact(
    sentence: str, checks: tuple[str, tuple[str, ...]]
) -> None:
    script, options = checks
    compiled = compile_sentence(sentence, NAMES)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria", vocabulary=NAMES).why
    expected = AllOfCheck(
        operands=[
            ScriptRanCheck(kind="script_ran", path=script),
            *(_with_argument(script, option) for option in options),
        ]
    )
    assert compiled.check == expected


@pytest.mark.parametrize(
    ("sentence", "why", "vocabulary"),
    [
        # a name no adapter gives, a possessive that is not the answer's, no names handed in
        ("Claudette opened `a.md`.", "stopped at 'claudette'", NAMES),
        ("Codex's sandbox ran `x.sh`.", 'stopped at "codex\'s"', NAMES),
        ("Codex ran `x.sh`.", "stopped at 'codex'", None),
        # the particle away from its verb; a link the word qualifies; a link to no literal
        ("The agent kicked `x.sh` off.", "stopped at 'kicked'", NAMES),
        (
            "The final answer includes a broken link to `https://e.org`.",
            "stopped at 'broken'",
            NAMES,
        ),
        ("The final answer includes a link to the `https://e.org` page.", "stopped at 'to'", NAMES),
        # "or similar": another command that does the job is a judgement
        ("The agent used `x.sh` or similar.", "stopped at 'or'", NAMES),
        # "or equivalent" of anything but a script: `pnpm --dir app dev`, `npx next dev`, another
        # file; only a script run in any way is exactly the same act
        ("The agent runs `pnpm dev` or equivalent.", "stopped at 'equivalent'", NAMES),
        (
            "A dev server start command (pnpm dev, npm run dev, or equivalent).",
            "stopped at 'dev'",
            NAMES,
        ),
        # an option of no named command; options joined by "or"; an option's unquoted value
        ("The agent ran a fast query (--since).", "stopped at 'fast'", NAMES),
        (
            "The agent ran a dated `report.py` call (--since or --days).",
            "stopped at 'dated'",
            NAMES,
        ),
        ("The agent ran `tool.py` with --verbose output.", "stopped at 'output'", NAMES),
        ("The agent ran `k8s.py` with --namespace prod.", "stopped at 'prod'", NAMES),
        # a write of some kinds only: creating a file, or deleting one, is left open
        ("No file is edited.", "stopped at 'edited'", NAMES),
        ("No files were changed or added.", "stopped at 'added'", NAMES),
        ("No file is created and deleted.", "stopped at 'and'", NAMES),
        ("No file in the repo is written or removed.", "stopped at 'repo'", NAMES),
        # the workspace unchanged, but for a part, or hedged
        ("The workspace is mostly unchanged.", "stopped at 'is'", NAMES),
        ("The workspace is left unchanged apart from `out.txt`.", "stopped at 'is'", NAMES),
    ],
)
def test_a_round_four_near_miss_refuses(
    sentence: str, why: str, vocabulary: SkillVocabulary | None
) -> None:
    assert compile_sentence(sentence, vocabulary) is None
    assert why in refuse_sentence(sentence, "pass_criteria", vocabulary=vocabulary).why


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        (f"Claude read `{REFS}/a.md`.", "pass"),
        (f"Codex read `{REFS}/b.md`.", "fail"),
        (f"`{REFS}/a.md` was looked at prior to `{REFS}/docs.txt`.", "pass"),
        (f"`{REFS}/docs.txt` was looked at prior to `{REFS}/a.md`.", "fail"),
        ("Gemini kicked off `python3 tool.py run`.", "pass"),
        ("The final answer includes a link to `migrations/0001_x.sql`.", "pass"),
        ("The final answer includes a link to `migrations/0002_y.sql`.", "fail"),
        ("No file in the workspace is modified, created or deleted.", "fail"),
        ("The workspace is left unchanged.", "fail"),
    ],
)
def test_a_round_four_form_judges_what_it_says(sentence: str, verdict: str) -> None:
    assert _verdict(sentence, NAMES) == verdict
