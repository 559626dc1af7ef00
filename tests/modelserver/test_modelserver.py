"""The scripted model server without Codex: behaviour files, selection and the HTTP protocol."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evaluator.adapters import adapter_names
from evaluator.adapters.codex.subagent import LAUNCHER_HEAD
from evaluator.demo import BROKEN_CASES
from evaluator.errors import InputError
from evaluator.modelserver import Behavior, BehaviorLibrary, ScriptedModelServer, load_behaviors
from evaluator.modelserver.anthropic import step_blocks
from evaluator.modelserver.behaviors import (
    Step,
    answers_judge,
    unanswered_cases,
    unmatched_behaviors,
)
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt, extract_launcher_payload, launcher_prompt
from tests.conftest import ROOT
from tests.support import behavior


def _post(
    server: ScriptedModelServer, body: dict[str, object], headers: dict[str, str] | None = None
) -> tuple[int, str]:
    request = urllib.request.Request(
        server.base_url + "/responses",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _user(text: str) -> dict[str, object]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _items(sse: str) -> list[dict[str, object]]:
    events = [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]
    assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
    return [e["item"] for e in events if e["type"] == "response.output_item.done"]  # type: ignore[misc]


def test_steps_follow_the_thread_history() -> None:
    steps = [
        {"cmd": "ls", "workdir": "sub"},
        {"patch": "*** Begin Patch\n*** End Patch"},
        {"final": "ok"},
    ]
    with ScriptedModelServer(BehaviorLibrary([behavior("b", "hello", steps)])) as server:
        env = _user("<environment_context>\n</environment_context>")
        history: list[dict[str, object]] = [env, _user("hello there")]
        status, body = _post(server, {"input": history}, {"thread-id": "t1"})
        (call,) = _items(body)
        assert status == 200 and call["name"] == "exec_command"
        assert json.loads(str(call["arguments"])) == {"cmd": "ls", "workdir": "sub"}
        history += [
            call,
            {"type": "function_call_output", "call_id": call["call_id"], "output": "x"},
        ]
        (patch,) = _items(_post(server, {"input": history})[1])
        assert patch["type"] == "custom_tool_call" and patch["name"] == "apply_patch"
        history += [patch]
        (final,) = _items(_post(server, {"input": history})[1])
        assert final["type"] == "message" and final["content"][0]["text"] == "ok"  # type: ignore[index]


def test_unmatched_and_ambiguous_prompts_get_clear_errors() -> None:
    library = BehaviorLibrary(
        [behavior("a", "same", [{"final": "a"}]), behavior("b", "same", [{"final": "b"}])]
    )
    with ScriptedModelServer(library) as server:
        status, body = _post(server, {"input": [_user("nothing here")]})
        assert status == 400 and "no scripted behaviour matches prompt 'nothing here'" in body
        # The prompt as its author wrote it: not the boundary note the agent was also given.
        status, body = _post(server, {"input": [_user(agent_prompt("two\nlines"))]})
        assert status == 400
        message = json.loads(body)["error"]["message"]
        assert message.endswith("no scripted behaviour matches prompt 'two\\nlines'"), message
        status, body = _post(server, {"input": [_user("the same")]})
        assert status == 400 and "several scripted behaviours match" in body and "a, b" in body
        assert [r.error is not None for r in server.records] == [True, True, True]


def test_launcher_prompt_round_trips_and_spawns_the_payload() -> None:
    payload = "line one\n\n  indented — ünïcode\n"
    assert extract_launcher_payload(launcher_prompt(payload, LAUNCHER_HEAD)) == payload
    with ScriptedModelServer(BehaviorLibrary([])) as server:
        (spawn,) = _items(
            _post(server, {"input": [_user(launcher_prompt(payload, LAUNCHER_HEAD))]})[1]
        )
        assert spawn["namespace"] == "multi_agent_v1"
        assert json.loads(str(spawn["arguments"])) == {"message": payload, "fork_context": False}


def test_behaviour_files_are_validated_with_locations(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "name: x\nmatch: {prompt_contains: y}\nsteps:\n  - cmd: ls\n    final: z\n"
    )
    with pytest.raises(InputError) as info:
        load_behaviors(tmp_path, adapter_names())
    assert str(info.value).startswith(f"{tmp_path / 'bad.yaml'}:4:")
    assert "exactly one of" in str(info.value)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (
            "name: x\nmach: {prompt_contains: y}\nsteps: [{final: z}]\n",
            ":2:1: mach:",
            "unknown field 'mach' (did you mean 'match'?): 'match' is required",
        ),
        (
            "name: x\nmatch: {prompt_contains: y}\nstep: [{final: z}]\n",
            ":3:1: step:",
            "unknown field 'step' (did you mean 'steps'?): 'steps' is required",
        ),
        # A key that is no near miss of the missing one: the missing key, as before.
        (
            "name: x\nmatch: {prompt_contains: y}\nlater: [{final: z}]\n",
            ":1:1: steps:",
            "required field is missing",
        ),
    ],
)
def test_a_misspelt_required_key_is_named_at_its_own_line(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    """`mach:` for `match:` said only `match: required field is missing` at 1:1: the typo
    itself, at its own line, with what it should be, is what the author needs."""
    (tmp_path / "b.yaml").write_text(text)
    with pytest.raises(InputError) as info:
        load_behaviors(tmp_path, adapter_names())
    assert str(info.value).startswith(f"{tmp_path / 'b.yaml'}{where}"), str(info.value)
    assert message in str(info.value)


def test_shipped_behaviours_load() -> None:
    shipped = ROOT / "agentic-evals/targets/db-migrations/behaviors"
    directories = sorted({path.parent for path in shipped.rglob("*.yaml")})
    assert shipped / "follows-skill" in directories and shipped / "broken" in directories
    for directory in directories:  # golden/<case>/ holds one case's failing goldens
        library = load_behaviors(directory, adapter_names())
        assert library.behaviors, directory


def test_get_models_answers_a_list() -> None:
    with (
        ScriptedModelServer(BehaviorLibrary([])) as server,
        urllib.request.urlopen(server.base_url + "/models", timeout=5) as response,
    ):
        assert json.loads(response.read())["data"][0]["id"] == "mock-model"


def test_a_websocket_handshake_is_told_to_use_http() -> None:
    """Codex's built-in OpenAI provider tries a WebSocket first: 426 sends it to HTTP at once
    (the model list it was given before made it retry five times, about 6 s per attempt)."""
    headers = {"Connection": "Upgrade", "Upgrade": "websocket"}
    with ScriptedModelServer(BehaviorLibrary([])) as server:
        request = urllib.request.Request(server.base_url + "/responses", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 426


def test_refuses_non_loopback_hosts() -> None:
    with pytest.raises(ValueError, match="loopback"):
        ScriptedModelServer(BehaviorLibrary([]), host="0.0.0.0")


def test_model_server_command_serves_on_loopback_until_stopped(tmp_path: Path) -> None:
    import subprocess
    import sys

    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evaluator",
            "model-server",
            "--behaviors",
            str(ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"),
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        request = urllib.request.Request(
            base_url + "/responses",
            data=json.dumps(
                {"input": [_user("Add a default currency per account, please")]}
            ).encode(),
            headers={"Content-Type": "application/json", "thread-id": "t-cli"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            (item,) = _items(response.read().decode())
        assert json.loads(str(item["arguments"]))["cmd"].endswith("SKILL.md")
        logged = json.loads(log.read_text().splitlines()[0])
        assert (
            logged["behavior"] == "follows-skill/routing-add-column"
            and logged["thread_id"] == "t-cli"
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_cases_no_behaviour_answers_are_named_before_the_run() -> None:
    """A folder scripting some of the selected cases: the others are named (their attempts
    could only end blocked); a judge's behaviour answers no case."""

    agent = Behavior.model_validate(
        {"name": "a", "match": {"prompt_contains": "add a column"}, "steps": [{"final": "ok"}]}
    )
    judge = Behavior.model_validate(
        {
            "name": "j",
            "match": {"prompt_contains": "rename"},
            "steps": [{"final_json": {"verdict": "met", "rationale": "r", "refs": ["msg-2"]}}],
        }
    )
    prompts = {"add": "Please add a column.", "rename": "Please rename the table."}
    assert unanswered_cases(BehaviorLibrary([agent, judge]), prompts) == ["rename"]
    # a judge that reads its evidence, then answers in a branch, ends in a `final` it never
    # plays: it is still a judge's, which neither answers a case nor must match one
    verdict = {"final_json": {"verdict": "met", "rationale": "r", "refs": ["msg-2"]}}
    reading_judge = Behavior.model_validate(
        {
            "name": "reading-judge",
            "match": {"prompt_contains": "says no deletion"},
            "steps": [
                {"cmd": "cat final-answer.txt"},
                {"when": {"output_contains": "No deletion"}, "then": [verdict]},
                {"final": "unreachable"},
            ],
        }
    )
    assert answers_judge(reading_judge) and answers_judge(judge) and not answers_judge(agent)
    library = BehaviorLibrary([agent, reading_judge])
    assert unanswered_cases(library, prompts) == ["rename"]
    assert unmatched_behaviors(library, prompts) == []
    # the demo's scripted folders answer every demo case
    repo = open_repo(ROOT / "agentic-evals", ROOT, target="db-migrations")
    cases = repo.targets["db-migrations"].all_cases()
    every = {c.case_id: c.case.input.user_prompt for c in cases}
    scripted = ROOT / "agentic-evals/targets/db-migrations/behaviors"
    library = load_behaviors(scripted / "follows-skill", adapter_names())
    assert unanswered_cases(library, every) == []
    broken = load_behaviors(scripted / "broken", adapter_names())
    assert unanswered_cases(broken, {c: every[c] for c in BROKEN_CASES}) == []


def test_a_call_step_is_the_agents_own_tool_with_its_arguments_as_given() -> None:
    args = {"cmd": "ls -la", "max_output_tokens": 50}
    step = {"call": {"name": "exec_command", "args": args}}
    steps = [step, {"final": "ok"}]
    with ScriptedModelServer(BehaviorLibrary([behavior("b", "hello", steps)])) as server:
        env = _user("<environment_context>\n</environment_context>")
        (call,) = _items(_post(server, {"input": [env, _user("hello there")]})[1])
    assert call["name"] == "exec_command" and json.loads(str(call["arguments"])) == args
    [block] = step_blocks(Step.model_validate({"call": {"name": "LS", "args": {"path": "/x"}}}))
    assert block["type"] == "tool_use" and (block["name"], block["input"]) == ("LS", {"path": "/x"})


def test_codex_s_web_search_goes_out_with_the_step_after_it() -> None:
    # The service runs a hosted web search itself: the CLI answers nothing and asks no more, so
    # the search items and the next step are one response, and the next request counts them.
    search = {"type": "search", "query": "token expiry"}
    opened = {"type": "open_page", "url": "https://docs.example.com/t"}
    steps = [
        {"call": {"name": "web_search", "args": {"action": search}}},
        {"call": {"name": "web_search", "args": {"action": opened}}},
        {"cmd": "ls"},
        {"final": "ok"},
    ]
    with ScriptedModelServer(BehaviorLibrary([behavior("b", "hello", steps)])) as server:
        history: list[dict[str, object]] = [_user("hello there")]
        found, query, ls = _items(_post(server, {"input": history}, {"thread-id": "t1"})[1])
        assert (found["type"], found["action"], found["status"]) == (
            "web_search_call",
            search,
            "completed",
        )
        assert (query["type"], query["action"]) == ("web_search_call", opened)
        assert ls["name"] == "exec_command" and found["id"] != query["id"]
        history += [found, query, ls, {"type": "function_call_output", "call_id": ls["call_id"]}]
        (final,) = _items(_post(server, {"input": history}, {"thread-id": "t1"})[1])
        assert final["type"] == "message"
