"""git: the repository it works in, the paths it is given, the subcommands that run hooks."""

from __future__ import annotations

import posixpath

from evaluator.evidence.shell.model import words
from evaluator.evidence.shell.registry import handles
from evaluator.evidence.shell.results import ContentWrite, ScriptRun
from evaluator.evidence.shell.text import looks_like_path
from evaluator.evidence.shell.walker import Walker
from evaluator.vocabulary import AccessKind

# Subcommands that rewrite the work tree from content the session does not show (a patch's
# body, the repository's history): what they make there (symlinks included) is unknown.
_GIT_WORK_TREE = frozenset(
    words(
        "apply am checkout switch restore reset merge pull rebase cherry-pick revert stash"
        " read-tree checkout-index"
    )
)
_GIT_DRY = frozenset(words("--check --stat --numstat --summary -n --dry-run"))
_GIT_OPAQUE = frozenset(
    words("submodule filter-branch bisect daemon instaweb difftool mergetool send-email -p")
)
# `git clone`'s options that take the next word as their value (`--depth 1` names no source).
CLONE_VALUED = frozenset(
    words(
        "-o --origin -b --branch -u --upload-pack --template --reference --reference-if-able"
        " --separate-git-dir --depth --shallow-since --shallow-exclude -j --jobs -c --config"
        " --filter --server-option --bundle-uri"
    )
)
# Of them, the ones that name a path: what git does with it.
_CLONE_PATHS: dict[str, AccessKind] = {
    "--reference": "read",
    "--reference-if-able": "read",
    "--template": "read",
    "--separate-git-dir": "write",
}


@handles("git")
def git(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    index = 0
    directory = w.cwd
    while index < len(args):
        raw = args[index]
        if raw is None:
            w.opaque("git with a computed argument")
            return
        if raw in ("-C",):
            value = args[index + 1] if index + 1 < len(args) else None
            if value is None:
                w.opaque("git -C with a computed directory")
                return
            directory = w.resolve(value, directory)
            index += 2
        elif raw in ("-c", "--config-env"):
            setting = args[index + 1] if index + 1 < len(args) else None
            if setting is None or not _safe_git_setting(setting):
                w.opaque(f"git -c {setting}: a setting that can run commands or move paths")
            index += 2
        elif raw.startswith(
            ("--git-dir", "--work-tree", "--exec-path", "--namespace", "--super-prefix")
        ):
            if "=" in raw:
                w.add("path", raw.split("=", 1)[1], "git", directory)
                index += 1
            else:
                w.path_arg(
                    "path",
                    args[index + 1] if index + 1 < len(args) else None,
                    raw,
                    "git",
                    directory,
                )
                index += 2
        elif raw.startswith("-"):
            index += 1
        else:
            break
    w.add("path", directory, "git")
    if index >= len(args):
        return
    sub = args[index] or ""
    # git runs what its repository configures: hooks, aliases, pagers, filters. A repository
    # whose `.git` the session wrote into (here or in any directory above) runs code the session
    # wrote, which is not shown here.
    repository = directory
    while True:
        w.result.runs.append(ScriptRun(posixpath.join(repository, ".git"), "unknown", "git", True))
        if repository in ("/", ""):
            break
        repository = posixpath.dirname(repository)
    rest = args[index + 1 :]
    rest_texts = texts[index + 1 :]
    positional = [
        (r, t) for r, t in zip(rest, rest_texts, strict=True) if r is None or not r.startswith("-")
    ]
    if sub in ("init",) and positional:
        w.path_arg("write", positional[0][0], positional[0][1], "git init", directory)
    elif sub == "clone":
        values = _clone_operands(w, rest, rest_texts, directory)
        if values:
            source = values[0][0] or ""
            if source.startswith("file://"):
                w.add("read", source[7:], "git clone", directory)
            elif "://" not in source and "@" not in source.split("/")[0]:
                w.path_arg("read", values[0][0], values[0][1], "git clone", directory)
        destination = values[1] if len(values) > 1 else None
        made: str | None = None
        if destination is not None:
            w.path_arg("write", destination[0], destination[1], "git clone", directory)
            made = destination[0]
        elif values and values[0][0]:
            made = posixpath.basename(values[0][0].rstrip("/")).removesuffix(".git")
            w.add("write", made, "git clone", directory)
        if made is not None:
            w.result.contents.append(ContentWrite(w.resolve(made, directory), None))
    elif sub in ("diff",) and "--no-index" in rest:
        for raw, text in positional:
            w.path_arg("read", raw, text, "git diff --no-index", directory)
    elif sub in _GIT_OPAQUE:
        w.opaque(f"git {sub} runs commands or hooks not shown")
    elif sub == "config" and positional and not _reads_config(rest):
        key = positional[0][0]
        if key is None or not _safe_git_setting(key):
            w.opaque(f"git config {key}: a setting that can run commands or move paths")
    else:
        if sub in _GIT_WORK_TREE and not _GIT_DRY & {r for r in rest if r is not None}:
            w.result.contents.append(ContentWrite(directory, None))
        for raw, _ in positional:
            if raw is not None and (looks_like_path(raw) or raw.startswith("/")) and ":" not in raw:
                w.add("path", raw, f"git {sub}", directory)
        for option in rest:
            if option is not None and option.startswith("--") and "=" in option:
                value = option.split("=", 1)[1]
                if looks_like_path(value):
                    w.add("path", value, f"git {sub}", directory)


def _clone_operands(
    w: Walker, rest: list[str | None], texts: list[str], directory: str
) -> list[tuple[str | None, str]]:
    """`git clone [options] SOURCE [DIR]`: SOURCE and DIR, with what the options' own values
    do recorded (a reference repository read, a git dir written, an upload command run)."""
    operands: list[tuple[str | None, str]] = []
    index = 0
    while index < len(rest):
        raw, text = rest[index], texts[index]
        if raw is None or not raw.startswith("-") or operands:
            operands.append((raw, text))
            index += 1
            continue
        if raw == "--":
            operands += list(zip(rest[index + 1 :], texts[index + 1 :], strict=True))
            break
        option, equals, attached = raw.partition("=")
        if equals:
            value: str | None = attached
            value_text = attached
            index += 1
        elif option in CLONE_VALUED:
            value = rest[index + 1] if index + 1 < len(rest) else None
            value_text = texts[index + 1] if index + 1 < len(texts) else ""
            index += 2
        else:
            index += 1
            continue
        if option in ("-u", "--upload-pack"):
            w.opaque("git clone --upload-pack runs a command not shown")
        elif option in ("-c", "--config") and (value is None or not _safe_git_setting(value)):
            w.opaque(f"git clone -c {value}: a setting that can run commands or move paths")
        elif option in _CLONE_PATHS:
            w.path_arg(_CLONE_PATHS[option], value, value_text, "git clone", directory)
    return operands


def _reads_config(options: list[str | None]) -> bool:
    """`git config --get x`, `--list`: the configuration is read, not changed."""
    return any(
        o in ("--get", "--get-all", "--get-regexp", "-l", "--list", "--show-origin")
        for o in options
    )


def _safe_git_setting(setting: str) -> bool:
    key = setting.split("=", 1)[0].lower()
    return key.startswith(
        ("user.", "color.", "init.defaultbranch", "advice.", "safe.directory")
    ) or key in (
        "core.quotepath",
        "log.showsignature",
        "commit.gpgsign",
    )
