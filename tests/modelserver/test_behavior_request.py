"""`when: {request_contains: TEXT}`: a scripted agent decides from what the request shows the
model (instructions, tool definitions, opening messages), through the server, for both the
Responses API and the Messages API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from pydantic import ValidationError

from evaluator.modelserver import BehaviorLibrary, ScriptedModelServer
from evaluator.modelserver.behaviors import Behavior

DESCRIPTION = "Use when adding a column to a SQLite table"
DECIDES = Behavior.model_validate(
    {
        "name": "decides-from-descriptions",
        "match": {"prompt_contains": "avatar_url"},
        "steps": [
            {
                "when": {"request_contains": DESCRIPTION},
                "then": [{"read": ".agents/skills/db-migrations/SKILL.md"}, {"cmd": "then-2"}],
                "else": [{"cmd": "ls"}, {"cmd": "else-2"}],
            },
            {"final": "done"},
        ],
    }
)
PROMPT = "Add an avatar_url column to users."


def _post(server: ScriptedModelServer, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    request = urllib.request.Request(
        server.base_url.removesuffix("/v1") + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "thread-id": "t1"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
    except urllib.error.HTTPError as exc:
        raise AssertionError(exc.read().decode()) from None
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _responses_action(server: ScriptedModelServer, body: dict[str, Any]) -> str:
    events = _post(server, "/v1/responses", body)
    (item,) = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    if item["type"] == "function_call":
        return str(json.loads(item["arguments"])["cmd"])
    return "final: " + item["content"][0]["text"]


def _messages_action(server: ScriptedModelServer, body: dict[str, Any]) -> str:
    events = _post(server, "/v1/messages?beta=true", {"model": "m", "stream": True, **body})
    starts = {e["index"]: e["content_block"] for e in events if e["type"] == "content_block_start"}
    uses = [i for i, b in starts.items() if b["type"] == "tool_use"]
    if uses:
        partial = "".join(
            e["delta"].get("partial_json", "")
            for e in events
            if e["type"] == "content_block_delta" and e["index"] == uses[0]
        )
        arguments = json.loads(partial) if partial else starts[uses[0]]["input"]
        return f"{starts[uses[0]]['name']}: {json.dumps(arguments, sort_keys=True)}"
    texts = [e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta"]
    return "final: " + "".join(texts)


@pytest.fixture()
def server() -> Any:
    with ScriptedModelServer(BehaviorLibrary([DECIDES])) as running:
        yield running


def test_responses_the_instructions_decide(server: ScriptedModelServer) -> None:
    skills = f"<skills_instructions>\n- db-migrations: {DESCRIPTION}.\n</skills_instructions>"
    shown = {"instructions": "You are a coding agent.", "input": [_user(skills), _user(PROMPT)]}
    assert _responses_action(server, shown).startswith("cat -- .agents/skills/db-migrations/")
    in_instructions = {"instructions": f"Skills: {DESCRIPTION}", "input": [_user(PROMPT)]}
    assert _responses_action(server, in_instructions).startswith("cat -- ")
    in_tools = {
        "tools": [{"type": "function", "name": "skill", "description": DESCRIPTION}],
        "input": [_user(PROMPT)],
    }
    assert _responses_action(server, in_tools).startswith("cat -- ")
    hidden = {"instructions": "Skills: a vague helper.", "input": [_user(PROMPT)]}
    assert _responses_action(server, hidden) == "ls"


def test_responses_text_after_the_first_tool_call_does_not_count(
    server: ScriptedModelServer,
) -> None:
    """A tool output (or a later message) holding the text cannot flip a decision already
    played: only what came before the thread's first tool call is searched."""
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": DESCRIPTION}
    body = {"input": [_user(PROMPT), call, output, _user(f"later: {DESCRIPTION}")]}
    assert _responses_action(server, body) == "else-2"


def test_responses_the_decision_holds_on_every_request_of_the_thread(
    server: ScriptedModelServer,
) -> None:
    first = {"instructions": DESCRIPTION, "input": [_user(PROMPT)]}
    assert _responses_action(server, first).startswith("cat -- ")
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "# skill body"}
    second = {"instructions": DESCRIPTION, "input": [_user(PROMPT), call, output]}
    assert _responses_action(server, second) == "then-2"


def test_messages_the_system_prompt_and_reminders_decide(server: ScriptedModelServer) -> None:
    in_system = {
        "system": [{"type": "text", "text": f"Available skills: {DESCRIPTION}"}],
        "messages": [{"role": "user", "content": PROMPT}],
    }
    assert _messages_action(server, in_system).startswith("Read: ")
    reminder = f"<system-reminder>skills: db-migrations: {DESCRIPTION}</system-reminder>"
    in_reminder = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": reminder}, {"type": "text", "text": PROMPT}],
            }
        ]
    }
    assert _messages_action(server, in_reminder).startswith("Read: ")
    in_tools = {
        "tools": [{"name": "Skill", "description": f"- db-migrations: {DESCRIPTION}"}],
        "messages": [{"role": "user", "content": PROMPT}],
    }
    assert _messages_action(server, in_tools).startswith("Read: ")
    hidden = {"messages": [{"role": "user", "content": PROMPT}]}
    assert _messages_action(server, hidden) == 'Bash: {"command": "ls"}'


def test_messages_a_tool_result_does_not_count(server: ScriptedModelServer) -> None:
    use = {"type": "tool_use", "id": "u1", "name": "Bash", "input": {"command": "ls"}}
    result = {"type": "tool_result", "tool_use_id": "u1", "content": DESCRIPTION}
    body = {
        "messages": [
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result]},
        ]
    }
    assert _messages_action(server, body) == 'Bash: {"command": "else-2"}'


@pytest.mark.parametrize(
    "when",
    [{"request_contains": "x", "chance": 0.5}, {"request_contains": ""}],
)
def test_malformed_request_conditions_are_refused(when: dict[str, Any]) -> None:
    steps = [{"when": when, "then": [{"cmd": "a"}]}, {"final": "f"}]
    with pytest.raises(ValidationError):
        Behavior.model_validate({"name": "b", "match": {"prompt_contains": "x"}, "steps": steps})


def test_the_skill_step_loads_a_skill_as_each_agent_does() -> None:
    loads = Behavior.model_validate(
        {
            "name": "loads",
            "match": {"prompt_contains": "avatar_url"},
            "steps": [{"skill": "db-migrations"}, {"final": "done"}],
        }
    )
    with ScriptedModelServer(BehaviorLibrary([loads])) as server:
        codex = _responses_action(server, {"input": [_user(PROMPT)]})
        assert codex == "cat -- .agents/skills/db-migrations/SKILL.md"
        claude = _messages_action(server, {"messages": [{"role": "user", "content": PROMPT}]})
        assert claude == 'Skill: {"skill": "db-migrations"}'
