"""A `command` check's failure is the machine's (`blocked: environment`, out of the verified
pass rate) only when its access trace proves that the machine stopped it before any code of the
session ran. The agent's own program, tests, script, Makefile or npm script that prints a build
tool's offline text (or `sh: foo: not found`) and exits non-zero is a failure; the real tools,
really offline in the check's jail, stay blocked."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from evaluator.contract.models import CommandCheck
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext
from evaluator.judge.base import CheckAccess, CheckExec, CommandOutcome, CommandTrace
from evaluator.judge.checks import stop_proof
from evaluator.judge.checks.command import command
from evaluator.judge.verdict import CheckVerdict
from evaluator.pipeline.commands import JailedCommands
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.tracer import Tracer
from evaluator.workspace.snapshot import fingerprint, save_snapshot, unchanged_digests
from tests.support import codex_or_skip, run_scripted, scratch_dir, tracer_under_test

needs_traced_jail = pytest.mark.skipif(
    get_jail("bwrap").unavailable() is not None or Tracer().unavailable() is not None,
    reason="bubblewrap or strace does not work here",
)
TRACED = LaunchPolicy(jail="bwrap", trace=True, hidden=(Path.home(),), tracer=tracer_under_test())

PEP_668 = "error: externally-managed-environment\\n\\nThis environment is externally managed"
MAVEN = (
    "[ERROR] Failed to execute goal on project demo: Could not resolve dependencies for project"
    " x:demo:jar:1.0: Could not transfer artifact com.google.guava:guava:pom:33.0.0-jre:"
    " Unknown host repo.maven.apache.org"
)
GO = (
    'go: rsc.io/quote@v1.5.2: Get "https://proxy.golang.org/rsc.io/quote/@v/v1.5.2.mod":'
    " dial tcp: lookup proxy.golang.org: no such host"
)
NPM = "npm error code EAI_AGAIN"
GO_TEST = 'package m\n\nimport "testing"\n\nfunc TestFetch(t *testing.T) {\n\tt.Fatal(`{}`)\n}\n'
GO_MOD = "module example.com/m\n\ngo 1.19\n"
GO_MOD_REQUIRING = GO_MOD + "\nrequire rsc.io/quote v1.5.2\n"
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>x</groupId><artifactId>demo</artifactId><version>1.0</version></project>
"""


@pytest.fixture
def workspace() -> Iterator[Path]:
    with scratch_dir() as scratch:
        path = scratch / "ws"
        path.mkdir()
        yield path


def _judge(
    workspace: Path,
    text: str,
    files: dict[str, str],
    *,
    provided: tuple[str, ...] = (),
    launch: LaunchPolicy = TRACED,
) -> CheckVerdict:
    """`text` run as a check on a workspace holding `files`, those named in `provided` there
    before the agent ran (the eval's), the others written by the session."""
    for name, content in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        if content.startswith("#!"):
            path.chmod(0o755)
    baseline = {
        name: hashlib.sha256(files[name].encode()).hexdigest() for name in provided if name in files
    }
    context = JudgeContext(
        evidence=SessionEvidence(session_path="s.jsonl"),
        workspace=workspace,
        ref_prefix="case-artifacts/c/attempts/attempt-01/accepted-session.json",
        commands=JailedCommands(launch),
        baseline=baseline,
    )
    return command(CommandCheck(kind="command", command=text), context)


def _needs(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed here")


@needs_traced_jail
@pytest.mark.parametrize(
    ("text", "files", "tool"),
    [
        # pip, PEP 668: the agent's Python program
        (
            "python3 app.py",
            {"app.py": f"import sys\nprint('{PEP_668}')\nsys.exit(1)\n"},
            "python3",
        ),
        # Maven: the agent's test script, run by its path
        ("./run-tests.sh", {"run-tests.sh": f"#!/bin/sh\necho '{MAVEN}'\nexit 1\n"}, "sh"),
        # Maven again, from a Makefile of the agent's (a build file that runs commands)
        ("make test", {"Makefile": f"test:\n\t@echo '{MAVEN}'; exit 1\n"}, "make"),
        # go: the agent's test, which `go test` compiles and runs from /tmp
        pytest.param(
            "go test ./...",
            {"go.mod": GO_MOD, "m_test.go": GO_TEST.replace("{}", GO)},
            "go",
            marks=pytest.mark.slow,  # the go tool compiles and links the test: seconds
        ),
        # npm: a script of the agent's package.json, which npm runs through a shell
        (
            "npm test",
            {"package.json": json.dumps({"name": "x", "scripts": {"test": f"echo {NPM}; exit 1"}})},
            "npm",
        ),
        # `command not found`: the agent's program prints it and exits 127
        (
            "python3 app.py && mvn -q package",
            {"app.py": "import sys\nprint('/bin/sh: 1: mvn: not found')\nsys.exit(127)\n"},
            "python3",
        ),
    ],
)
def test_a_stop_printed_by_the_agent_s_own_code_is_a_failure(
    workspace: Path, text: str, files: dict[str, str], tool: str
) -> None:
    _needs(tool)
    verdict = _judge(workspace, text, files)
    assert verdict.status == "fail", verdict.detail
    assert "cannot be proven: it ran code of the session" in verdict.detail


@needs_traced_jail
@pytest.mark.parametrize(
    ("text", "files", "tool", "source"),
    [
        # go's compiler reads a Go source (data to the fetch) and prints its unused constant
        pytest.param(
            "go build ./...",
            {"go.mod": GO_MOD, "main.go": "package main\n\nfunc main() {\n\t`" + GO + "`\n}\n"},
            "go",
            "main.go holds the output's",
            marks=pytest.mark.slow,
        ),
        # npm reads package.json (data) and prints a dependency's version, JSON-decoded; slow:
        # npm's own start in the traced jail takes seconds (the unit tier's rule, conftest.py)
        pytest.param(
            "npm install",
            {
                "package.json": '{"name": "x", "dependencies": {"left-pad": "npm error \\u0045AI_AGAIN"}}'
            },
            "npm",
            "package.json holds the output's",
            marks=pytest.mark.slow,
        ),
        # pytest reads pyproject.toml (data) for its addopts and echoes a bad `-k` expression;
        # slow: a real pytest in the traced jail, compiling its modules afresh under the check's
        # own pycache home, takes seconds
        pytest.param(
            "python3 -m pytest -q -p no:cacheprovider",
            {
                "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-k 'No matching"
                " distribution found Temporary failure in name resolution ('\"\n"
            },
            "python3",
            "pyproject.toml holds the output's",
            marks=pytest.mark.slow,
        ),
        # `//go:generate` runs a program without a shell, its words split so no file holds the
        # printed text whole
        pytest.param(
            "go generate ./...",
            {
                "go.mod": GO_MOD,
                "main.go": "package main\n\n//go:generate printf %s%s\\n"
                ' "Get \\"https://proxy.golang.org/x/@v/list\\": dial" " tcp: lookup"\n'
                "//go:generate false\n\nfunc main() {}\n",
            },
            "go",
            "main.go holds a program's argument",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_tool_echoing_or_running_what_a_manifest_holds_is_no_machine_stop(
    workspace: Path, text: str, files: dict[str, str], tool: str, source: str
) -> None:
    """A manifest or a source is data to a fetch, not to every tool that reads it: the stop's
    text found in a file of the session's a process read, or a program started with words
    such a file holds, is the session's (red team, round 5). Before: blocked (environment)."""
    _needs(tool)
    if tool == "python3":
        pytest.importorskip("pytest")
    verdict = _judge(workspace, text, files)
    assert verdict.status == "fail", verdict.detail
    assert "cannot be proven: its words came from the session's files" in verdict.detail
    assert source in verdict.detail


@needs_traced_jail
def test_a_fetch_failure_from_processes_that_never_tried_the_network_is_no_machine_stop(
    workspace: Path,
) -> None:
    """A stop text assembled from several manifests, each holding a piece no search finds
    whole, printed by a program of the machine's: no process looked a name up or connected, so
    no fetch failed. Before: blocked (environment)."""
    files = {"requirements.txt": "npm er", "constraints.txt": "ror code EAI_", "go.mod": "AGAIN\n"}
    verdict = _judge(workspace, "cat requirements.txt constraints.txt go.mod; exit 1", files)
    assert verdict.status == "fail", verdict.detail
    assert "cannot be proven: no process of it tried to reach the network" in verdict.detail


@pytest.mark.slow  # four real tools, Maven's JVM among them
@needs_traced_jail
def test_the_real_tools_offline_stay_blocked_environment(workspace: Path) -> None:
    """Each stops before it runs anything of the project: what it read was only its manifest."""
    cases = []
    if Path("/usr/lib/python3.11/EXTERNALLY-MANAGED").is_file():
        cases.append(
            (
                "/usr/bin/python3 -m pip install -r requirements.txt",
                {"requirements.txt": "requests\n"},
                "PEP 668",
            )
        )
    if shutil.which("go"):
        cases.append(
            (
                "GOPROXY=https://proxy.invalid go mod download",
                {"go.mod": GO_MOD_REQUIRING},
                "go could not reach its module proxy",
            )
        )
    if shutil.which("npm"):
        cases.append(
            (
                "npm install --registry http://registry.invalid/ --fetch-retries=0",
                {"package.json": '{"name": "x", "dependencies": {"left-pad": "1.3.0"}}'},
                "npm could not reach its registry",
            )
        )
    if shutil.which("mvn"):
        cases.append(("mvn -B -q -o package", {"pom.xml": POM}, "Maven had to work offline"))
    if not cases:
        pytest.skip("none of pip (Debian's), go, npm, mvn is installed here")
    for text, files, why in cases:
        for old in workspace.iterdir():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        verdict = _judge(workspace, text, files)
        assert (verdict.status, verdict.blocked_reason) == ("blocked", "environment"), (
            verdict.detail
        )
        assert why in verdict.detail


@needs_traced_jail
def test_an_eval_s_own_script_may_run_unless_the_session_changed_it(workspace: Path) -> None:
    """A script the eval provided (a `./gradlew`), unchanged, is the eval's: its stop is the
    machine's. The same script, changed by the session, is the session's code."""
    script = "#!/bin/sh\nexec no-such-program-4711 build\n"
    honest = _judge(
        workspace, "./build.sh; no-such-program-4711", {"build.sh": script}, provided=("build.sh",)
    )
    assert (honest.status, honest.blocked_reason) == ("blocked", "environment"), honest.detail
    changed = _judge(
        workspace,
        "./build.sh; no-such-program-4711",
        {"build.sh": script + "# the agent's\n"},
        provided=(),
    )
    assert changed.status == "fail" and "ran build.sh" in changed.detail


@needs_traced_jail
def test_without_the_trace_a_stop_is_not_granted(workspace: Path) -> None:
    """`--trace off` (or no strace): the stop cannot be proven, the exit code decides."""
    untraced = LaunchPolicy(jail="bwrap", trace=False, hidden=(Path.home(),))
    verdict = _judge(workspace, "no-such-program-4711", {}, launch=untraced)
    assert verdict.status == "fail"
    assert "cannot be proven: the command ran without an access trace" in verdict.detail
    assert "--trace off" in verdict.detail


@needs_traced_jail
@pytest.mark.slow
@pytest.mark.codex
def test_through_codex_an_agent_printing_a_stop_fails_the_real_stop_stays_blocked(
    tmp_path: Path,
) -> None:
    """End to end, one attempt: a scripted Codex writes a program that prints pip's PEP 668
    refusal and exits 1, and a requirements file. The check running its program fails; the
    check running Debian's pip on its requirements (refused by PEP 668 for real) is blocked."""
    codex_or_skip()
    if not Path("/usr/lib/python3.11/EXTERNALLY-MANAGED").is_file():
        pytest.skip("Debian's python3.11 (PEP 668) is not here")
    evals = {
        "skill_name": "demo-skill",
        "evals": [
            {
                "id": 1,
                "prompt": "Write app.py and requirements.txt.",
                "assertions": [
                    {
                        "id": "app-runs",
                        "type": "command",
                        "description": "the program runs",
                        "command": "cd {{output_dir}} && python3 app.py",
                    },
                    {
                        "id": "deps-install",
                        "type": "command",
                        "description": "its requirements install",
                        "command": "cd {{output_dir}} && /usr/bin/python3 -m pip install"
                        " -r requirements.txt",
                    },
                ],
            }
        ],
    }
    folder = tmp_path / "demo-skill"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo-skill\ndescription: d\n---\nBody.\n")
    (folder / "evals/evals.json").write_text(json.dumps(evals))
    behaviours = tmp_path / "behaviours"
    behaviours.mkdir()
    fake = f"import sys\nprint('{PEP_668}')\nsys.exit(1)\n"
    (behaviours / "eval-1.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "stop-printer",
                "match": {"prompt_contains": "Write app.py and requirements.txt."},
                "steps": [
                    {"write": {"path": "app.py", "content": fake}},
                    {"write": {"path": "requirements.txt", "content": "requests\n"}},
                    {"final": "Done."},
                ],
            }
        )
    )
    outcome = run_scripted(
        repo=folder,
        cases=("eval-1",),
        behaviors=behaviours,
        runs_dir=tmp_path / "runs",
        attempts=1,
    )
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    manifest = json.loads((outcome.run_dir.path / "manifest.json").read_text())
    if manifest["sandbox"] != "bwrap" or manifest.get("trace") == "off":
        pytest.skip("the run had no traced jail")
    app, deps = result["assertions"]
    assert app["status"] == "fail", app
    assert "cannot be proven: it ran code of the session (read app.py" in json.dumps(app)
    assert (deps["status"], deps.get("blocked_reason")) == ("blocked", "environment"), deps
    assert result["status"] == "fail"


def test_a_rejudge_knows_the_eval_s_files_from_the_snapshot(tmp_path: Path) -> None:
    """Re-judging a saved run: the files its snapshot lists as unchanged are the eval's (with
    their digest now); those the session created or changed are not listed."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "gradlew").write_text("#!/bin/sh\n")
    (workspace / "pom.xml").write_text("<project/>\n")
    baseline = fingerprint(workspace)
    (workspace / "pom.xml").write_text("<project>changed</project>\n")
    (workspace / "app.py").write_text("print(1)\n")
    save_snapshot(workspace, baseline, tmp_path / "snapshot", tmp_path / "source")
    digests = unchanged_digests(tmp_path / "snapshot", workspace)
    assert digests == {"gradlew": hashlib.sha256(b"#!/bin/sh\n").hexdigest()}


def test_a_long_argument_of_a_program_is_searched_not_taken_for_a_name(tmp_path: Path) -> None:
    """A program started with a script text longer than a file name can be (`python3 -c ...`
    from pdm's `cmd`): looking it up as a workspace name must not fail the judge."""
    from evaluator.judge.base import CheckAccess, CheckExec, CommandTrace
    from evaluator.judge.checks.stop_proof import session_words

    script = "import sys; print('npm error EAI_AGAIN'); sys.exit(1)  # " + "x" * 300
    (tmp_path / "pyproject.toml").write_text(f"[tool.pdm.scripts]\ntest = {{cmd = {script!r}}}\n")
    trace = CommandTrace(
        execs=(CheckExec("/usr/bin/python3", ("python3", "-c", script)),),
        accesses=(CheckAccess(str(tmp_path / "pyproject.toml"), "read", True, 3, "python3"),),
        complete=True,
    )
    context = JudgeContext(
        evidence=SessionEvidence(session_path="s"), workspace=tmp_path, ref_prefix="s"
    )
    found = session_words(trace, context, "pdm run test", ["npm error", "EAI_AGAIN"])
    assert found and "pyproject.toml holds" in found[0]


@needs_traced_jail
@pytest.mark.slow  # real pip in the jail under the trace, retrying a refused index: about 10 s
def test_a_fetch_from_an_index_the_session_s_manifest_chose_on_this_machine_is_the_agent_s(
    workspace: Path,
) -> None:
    """Red team, round 7: the agent's requirements file sends pip to a dead index on this
    machine (`127.0.0.1:9`) for a package that does not exist. pip connects, is refused and
    prints its offline text, but the network played no part: a connection to this machine is
    not a fetch the machine's lack of a network stopped, and the address is the session's
    choice. Before: blocked (environment), the failing case dropped from the score."""
    files = {"requirements.txt": "--index-url http://127.0.0.1:9/simple\nno-such-dist-rt7==1.0\n"}
    verdict = _judge(workspace, "python3 -m pip install --no-deps -r requirements.txt", files)
    assert verdict.status == "fail", verdict.detail
    assert "cannot be proven" in verdict.detail


PIP_OFFLINE = (
    "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(...:"
    " Failed to establish a new connection: [Errno 111] Connection refused')': /simple/x/\n"
    "ERROR: No matching distribution found for no-such-dist-rt7==1.0\n"
)


def _judge_traced(workspace: Path, manifest: str, network: tuple[str, ...]) -> CheckVerdict:
    """pip's offline text from a check whose (hand-made) trace shows pip read the session's
    `requirements.txt` and connected to `network`, and nothing else."""
    (workspace / "requirements.txt").write_text(manifest)
    trace = CommandTrace(
        execs=(CheckExec("/usr/bin/python3", ("python3", "-m", "pip", "install")),),
        accesses=(CheckAccess(str(workspace / "requirements.txt"), "read", True, 5, "python3"),),
        complete=True,
        network=network,
    )

    def runner(command: str, workspace: Path, timeout_s: float) -> CommandOutcome:
        return CommandOutcome(1, PIP_OFFLINE, "bwrap jail", trace=trace)

    context = JudgeContext(
        evidence=SessionEvidence(session_path="s.jsonl"),
        workspace=workspace,
        ref_prefix="case-artifacts/c/attempts/attempt-01/accepted-session.json",
        commands=runner,
        baseline={},
    )
    text = "python3 -m pip install -r requirements.txt"
    return command(CommandCheck(kind="command", command=text), context)


def test_where_a_fetch_went_decides_whether_the_network_stopped_it(tmp_path: Path) -> None:
    """Red team, round 7. A fetch to this machine (`localhost`, any loopback address, spelt as
    a mapped IPv6 address too) or to an address the session's manifest names is no proof that
    the machine has no network; a name lookup (a resolver, a name service's socket) or a
    connection out to an address the session did not choose is. Before: all blocked
    (environment)."""
    agent_s: list[tuple[str, tuple[str, ...]]] = [
        ("--index-url http://localhost:9/simple\nx\n", ("127.0.0.1:9",)),
        ("--index-url http://[::1]:9/simple\nx\n", ("[::1]:9",)),
        ("-i http://127.1.2.3:53/simple\nx\n", ("[::ffff:127.1.2.3]:53",)),
        ("--index-url http://192.0.2.7/simple\nx\n", ("192.0.2.7:80",)),
    ]
    for manifest, network in agent_s:
        verdict = _judge_traced(tmp_path, manifest, network)
        assert verdict.status == "fail", (manifest, verdict.detail)
        assert "cannot be proven" in verdict.detail
    machine_s: list[tuple[str, tuple[str, ...]]] = [
        ("requests\n", ("/var/run/nscd/socket",)),
        ("requests\n", ("10.255.255.53:53", "203.0.113.80:443")),
        # the address is in the manifest, but the tool reached the resolver first
        ("# mirror 192.0.2.7 is down\nrequests\n", ("/run/nscd/socket",)),
    ]
    for manifest, network in machine_s:
        verdict = _judge_traced(tmp_path, manifest, network)
        assert (verdict.status, verdict.blocked_reason) == ("blocked", "environment"), (
            manifest,
            verdict.detail,
        )


def test_a_local_resolver_the_machine_names_is_a_name_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stop_proof, "_nameservers", lambda: frozenset({"127.0.0.53"}))
    assert stop_proof.left_the_machine("127.0.0.53:53")
    assert not stop_proof.left_the_machine("127.0.0.53:80")
    assert not stop_proof.left_the_machine("127.0.0.1:53")
    assert stop_proof.left_the_machine("10.0.0.1:443")
    assert stop_proof.left_the_machine("[2001:db8::1]:443")
    assert not stop_proof.left_the_machine("0.0.0.0:80")
    # a name service's socket is a lookup; a host service's socket answered from this machine
    assert stop_proof.left_the_machine("/run/nscd/socket")
    assert not stop_proof.left_the_machine("/run/proxy.sock")
