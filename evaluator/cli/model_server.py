"""`agentic-eval model-server`: serve scripted behaviours to the real Codex CLI on loopback."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import FiniteFloatRange
from evaluator.errors import EXIT_OK, EnvironmentProblem


@click.command("model-server")
@click.option(
    "--behaviors",
    "behaviors_dir",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Directory of behaviour YAML files.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="0 picks a free port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address only.")
@click.option(
    "--latency",
    "latency_s",
    type=FiniteFloatRange(min=0),
    default=0.0,
    help="Seconds added per reply.",
)
@click.option("--log", "log_path", type=click.Path(path_type=Path), default=None, help="JSONL log.")
def command(
    behaviors_dir: Path, port: int, host: str, latency_s: float, log_path: Path | None
) -> int:
    """Run the scripted model server (the provider API of every agent) until interrupted."""
    # the server is imported when the command runs, not for its --help
    from evaluator.adapters import adapter_names
    from evaluator.modelserver import ScriptedModelServer, load_behaviors

    library = load_behaviors(behaviors_dir, adapter_names())
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        raise click.BadParameter("only loopback addresses are allowed", param_hint="--host")
    try:
        server = ScriptedModelServer(
            library, host=host, port=port, latency_s=latency_s, log_path=log_path
        )
    except OSError as exc:  # the port taken (another server, a second copy of this one)
        raise EnvironmentProblem(
            f"--port: cannot listen on {host}:{port}: {exc.strerror or exc}"
            " (stop what holds it, or pass another port; 0 picks a free one)"
        ) from None
    click.echo(f"serving {len(library.behaviors)} behaviour(s) on {server.base_url}", err=True)
    click.echo(server.base_url, err=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop_quietly()
    return EXIT_OK
