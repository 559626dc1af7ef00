"""A command literal (`npm publish`, `rm -rf node_modules`) as the pattern of the commands that
do the same: the rule docs/criteria.md ("Command literals") states.

Two forms of the same command are written differently in the wild:

- **Options before the subcommand.** `npm --prefix app publish` is `npm publish`, `git -C repo
  commit` is `git commit`, `docker -H host run` is `docker run`. Each program with subcommands
  has its leading options below: those that take a value take it as the next word or after `=`
  (a short one also attached: `-Capp`), so the value is never read as the subcommand
  (`git -c alias.ci=commit status` is no commit). A long option not listed matches only in its
  `--name=value` form: a bare unknown option might take the next word.
- **Short flags in any cluster and order.** `rm -fr x`, `rm -r -f x` and `rm -rfv x` are `rm -rf
  x`, for a program the shell tables model (`evidence/shell`), whose short options that take a
  value are known: a literal whose cluster holds one of them (`tar -xzf`) keeps its order.

Patterns stay free of look-arounds (RE2-style engines read them too).
"""

from __future__ import annotations

import itertools
import re
import string
from dataclasses import dataclass

import evaluator.evidence.shell  # noqa: F401  (registers every command's model)
from evaluator.evidence.shell.registry import command_models


@dataclass(frozen=True)
class LeadingOptions:
    """A program's options before its subcommand."""

    valued_short: str = ""  # short options that take a value (`-C dir`, `-Cdir`)
    valued_long: str = ""  # long options that take a value (`--prefix dir`, `--prefix=dir`)
    flags_long: str = ""  # long options without one (`--no-pager`)
    attached_only: str = ""  # options whose value is always attached (`terraform -chdir=DIR`)
    plus_words: bool = False  # `cargo +nightly build`: a toolchain word before the subcommand


# Each program's global options as its own documentation lists them (`git help git`, `npm help
# config`, `docker --help`, ...); a short option not listed as valued is a flag.
LEADING_OPTIONS: dict[str, LeadingOptions] = {
    "git": LeadingOptions(
        valued_short="Cc",
        valued_long="--git-dir --work-tree --namespace --config-env --super-prefix",
        flags_long=(
            "--no-pager --paginate --bare --no-replace-objects --literal-pathspecs"
            " --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks"
            " --no-lazy-fetch --no-advice"
        ),
        attached_only="--exec-path",
    ),
    "npm": LeadingOptions(
        valued_short="Cw",
        valued_long=(
            "--prefix --workspace --loglevel --registry --userconfig --globalconfig --cache --otp"
        ),
        flags_long=(
            "--global --silent --quiet --verbose --workspaces --include-workspace-root --yes"
            " --json --offline --prefer-offline --no-audit --no-fund --ignore-scripts --dry-run"
            " --force --foreground-scripts --no-color"
        ),
    ),
    "npx": LeadingOptions(
        valued_short="pc",
        valued_long="--package --call --prefix",
        flags_long="--yes --no --no-install --quiet",
    ),
    "pnpm": LeadingOptions(
        valued_short="CF",
        valued_long="--dir --filter --reporter --loglevel --workspace-concurrency",
        flags_long=(
            "--recursive --workspace-root --silent --stream --parallel --aggregate-output"
            " --no-bail --offline --prefer-offline"
        ),
    ),
    "yarn": LeadingOptions(
        valued_long="--cwd", flags_long="--silent --verbose --offline --non-interactive"
    ),
    "bun": LeadingOptions(valued_long="--cwd", flags_long="--silent"),
    "pip": LeadingOptions(
        valued_long=(
            "--python --cache-dir --log --proxy --retries --timeout --cert --client-cert"
            " --exists-action"
        ),
        flags_long=(
            "--verbose --quiet --isolated --no-cache-dir --disable-pip-version-check"
            " --require-virtualenv --no-input --no-color --debug"
        ),
    ),
    "uv": LeadingOptions(
        valued_long="--directory --project --cache-dir --config-file --color",
        flags_long="--quiet --verbose --offline --no-cache --native-tls --no-progress --no-config",
    ),
    "poetry": LeadingOptions(
        valued_short="CP",
        valued_long="--directory --project",
        flags_long="--quiet --verbose --no-interaction --no-ansi --ansi --no-plugins --no-cache",
    ),
    "cargo": LeadingOptions(
        valued_short="CZ",
        valued_long="--config --color",
        flags_long="--verbose --quiet --frozen --locked --offline",
        plus_words=True,
    ),
    "go": LeadingOptions(valued_short="C"),
    "docker": LeadingOptions(
        valued_short="Hcl",
        valued_long="--host --context --config --log-level --tlscacert --tlscert --tlskey",
        flags_long="--debug --tls --tlsverify",
    ),
    "kubectl": LeadingOptions(
        valued_short="nsv",
        valued_long=(
            "--namespace --context --kubeconfig --server --cluster --user --as --as-group"
            " --token --request-timeout --cache-dir --certificate-authority"
            " --client-certificate --client-key --tls-server-name"
        ),
        flags_long="--insecure-skip-tls-verify",
    ),
    "helm": LeadingOptions(
        valued_short="n",
        valued_long=(
            "--namespace --kube-context --kubeconfig --kube-apiserver --kube-token"
            " --registry-config --repository-cache --repository-config"
        ),
        flags_long="--debug",
    ),
    "terraform": LeadingOptions(attached_only="-chdir"),
}
LEADING_OPTIONS["pip3"] = LEADING_OPTIONS["pip"]
# make's targets stand where a subcommand does (`make -C app test` runs `make test`); its options
# that take a value are the shell table's.
_MAKE = command_models()["make"]
LEADING_OPTIONS["make"] = LeadingOptions(
    valued_short=_MAKE.short_values,
    valued_long=" ".join(sorted(_MAKE.long_values)),
    flags_long="--silent --quiet --keep-going --always-make --dry-run --just-print --no-print-directory",
)

# The most flags a cluster literal may hold: its pattern lists every order of them.
MAX_CLUSTER_FLAGS = 4


def _alternation(names: str) -> str:
    # Option names are dashes, letters and digits: nothing to escape. Longest first, so a name
    # is never cut at a shorter one's end.
    return "|".join(sorted(names.split(), key=len, reverse=True))


def _flag_class(valued: str) -> str:
    """A character class of the letters a short flag may be: every letter but `valued`, written
    as ranges (`[A-BD-Za-bd-z]` without `c` and `C`)."""
    spans: list[str] = []
    for alphabet in (string.ascii_uppercase, string.ascii_lowercase):
        run: list[str] = []
        for letter in [*alphabet, ""]:
            if letter and letter not in valued:
                run.append(letter)
                continue
            if run:
                spans.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}")
            run = []
    return "[" + "".join(spans) + "]"


def leading_options(program: str) -> str:
    """The pattern of any run of `program`'s options before its subcommand (each with its
    leading space); empty when the program has none listed."""
    table = LEADING_OPTIONS.get(program)
    if table is None:
        return ""
    flag = _flag_class(table.valued_short)
    forms = []
    if table.valued_short:
        valued = "[" + table.valued_short + "]"
        forms.append(rf"-{flag}*{valued}(?:\s+\S+|\S+)")
    forms.append(rf"-{flag}+")
    if table.valued_long:
        forms.append(rf"(?:{_alternation(table.valued_long)})(?:=\S*|\s+\S+)")
    if table.flags_long:
        forms.append(rf"(?:{_alternation(table.flags_long)})(?:=\S*)?")
    if table.attached_only:
        forms.append(rf"(?:{_alternation(table.attached_only)})=\S*")
    forms.append(r"--[a-z][a-z0-9-]*=\S*")
    if table.plus_words:
        forms.append(r"\+\S+")
    return rf"(?:\s+(?:{'|'.join(forms)}))*"


def _cluster_letters(words: list[str], valued: str) -> str | None:
    """The letters of a literal's leading short-flag words (`-rf`, `-r -f`), when they can be
    reordered: flags only, each once, a few; else None (the literal keeps its order)."""
    letters = "".join(w[1:] for w in words)
    if (
        not letters
        or len(set(letters)) != len(letters)
        or len(letters) > MAX_CLUSTER_FLAGS
        or any(c in valued for c in letters)
    ):
        return None
    return letters


def _cluster_region(letters: str, valued: str) -> str:
    """Short-flag words holding every one of `letters`, in any cluster and order, with other
    flags among them: `-rf`, `-fr`, `-r -f`, `-rfv`, `-v -f -r`."""
    flag = _flag_class(valued)
    between = rf"(?:{flag}|\s+-)*"
    orders = [
        r"\s+-" + between + between.join(order) + rf"{flag}*(?:\s+-{flag}+)*"
        for order in itertools.permutations(letters)
    ]
    return "(?:" + "|".join(orders) + ")"


# Each pattern made, with the literal it was made from: what `explain` and the criteria
# benchmarks show for it (a pattern of every option and order is no reading for a person).
_LITERALS: dict[str, str] = {}


def command_literal(pattern: str) -> str | None:
    """The command literal a pattern of `command_pattern` was made from; None for any other."""
    return _LITERALS.get(pattern)


def command_pattern(command: str) -> str:
    """The pattern of a command literal, as a whole word: `rg` must not match `cargo`, a path
    may precede the program (`/usr/bin/git`)."""
    pattern = _pattern(command)
    _LITERALS[pattern] = command
    return pattern


def _pattern(command: str) -> str:
    words = command.split()
    program, rest = words[0], words[1:]
    start = rf"(?:^|[^\w-]){re.escape(program)}"
    end = r"(?:$|[^\w-])"
    model = command_models().get(program)
    flags = list(itertools.takewhile(lambda w: re.fullmatch(r"-[A-Za-z]+", w) is not None, rest))
    if model is not None and flags:
        letters = _cluster_letters(flags, model.short_values)
        if letters is not None:
            after = rest[len(flags) :]
            tail = (r"\s+" + re.escape(" ".join(after)) if after else "") + end
            return start + _cluster_region(letters, model.short_values) + tail
    if program in LEADING_OPTIONS and rest and not rest[0].startswith(("-", "+")):
        return start + leading_options(program) + r"\s+" + re.escape(" ".join(rest)) + end
    return rf"(?:^|[^\w-]){re.escape(command)}{end}"
