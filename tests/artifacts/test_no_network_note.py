"""A failing case whose agent met no network (real skills, round 10: `video-downloader`'s
`yt-dlp` printed `Failed to resolve 'www.youtube.com' ... Name or service not known`): the
report named only the failed check and sent the author to fix `SKILL.md`. It now says, under the
case, which output shows the missing network, quoting the words before the sign. Only for a
failing case, only from a tool's output (not the agent's answer), and never a verdict."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.report_findings import case_findings
from evaluator.artifacts.rundir import RunDir


def _case(
    run_dir: RunDir, case_id: str, status: str, records: list[dict[str, object]]
) -> CaseResult:
    folder = run_dir.case_artifacts(case_id)
    folder.mkdir(parents=True)
    (folder / "accepted-session.json").write_text(json.dumps({"records": records}))
    return CaseResult(
        case_id=case_id, workspace_root=None, thread_id=None, session_path=None, status=status
    )


def _result(n: int, text: str) -> dict[str, object]:
    return {"id": f"msg-{n}", "kind": "tool_result", "text": text}


def test_a_failing_case_names_the_output_that_met_no_network(tmp_path: Path) -> None:
    run_dir = RunDir(tmp_path / "run")
    lookup = (
        "[dl] starting\nERROR: [dl] HTTPSConnection(host='media.example', port=443): Failed to"
        " resolve 'media.example' ([Errno -2] Name or service not known) (caused by ...)\n"
    )
    results = [
        _case(run_dir, "offline", "fail", [_result(3, "ok\n"), _result(7, lookup)]),
        _case(run_dir, "passed", "pass", [_result(7, lookup)]),
        _case(
            run_dir,
            "answer-only",
            "fail",
            [
                {"id": "msg-9", "kind": "final_answer", "text": "Name or service not known"},
                _result(4, "curl: (6) Could not resolve the proxy settings file\n"),
            ],
        ),
        _case(
            run_dir,
            "curl",
            "fail",
            [_result(5, "curl: (6) Could not resolve host: api.example.org\n")],
        ),
    ]
    findings = case_findings(run_dir, results)
    (line,) = [x for x in findings["offline"].lines if x.startswith("No network")]
    assert line.startswith(
        "No network: `msg-7` printed `Failed to resolve 'media.example' ([Errno -2] Name or"
        " service not known`:"
    ), line
    assert "not the skill's" in line
    assert "passed" not in findings
    assert not any(x.startswith("No network") for x in findings["answer-only"].lines)
    (curl,) = [x for x in findings["curl"].lines if x.startswith("No network")]
    assert "`curl: (6) Could not resolve host`" in curl
