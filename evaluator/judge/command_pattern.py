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
- **An option's other names.** `rm -R x` and `rm --recursive --force x` are `rm -rf x`, `git
  commit --message=x` is `git commit -m x`: each program's (or subcommand's) options that are
  one option under several names are declared in `OPTION_SYNONYMS`, as its manual lists them;
  an option not declared has only the name the literal writes.
- **A subcommand's flags after other words** (`git push origin -f` is `git push --force`), for
  the programs whose parser reads an option anywhere before `--` (`INTERSPERSED`).
- **A word holding spaces** is one word however it is quoted (`git -C "my dir" commit`): the
  literal is read as bash reads it, and an option's value is one shell word (`command_line.py`).

Patterns stay free of look-arounds (RE2-style engines read them too).
"""

from __future__ import annotations

import itertools
import re
import shlex
import string
from dataclasses import dataclass

import evaluator.evidence.shell  # noqa: F401  (registers every command's model)
from evaluator.evidence.shell.registry import command_models
from evaluator.judge.command_line import SHELL_WORD, word_forms


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

# Programs whose subcommands take their options among their other words (`git push origin -f`
# is `git push -f origin`: git's parse-options, npm's and pnpm's argument parsers, pip's
# optparse, kubectl's and helm's cobra). Not docker (`docker run IMAGE -d` gives `-d` to the
# container), go (its flag package stops at the first other word), cargo, yarn, uv, poetry,
# terraform or make: there an option's place can change what it means, or is not checked here.
INTERSPERSED = frozenset({"git", "npm", "pnpm", "pip", "pip3", "kubectl", "helm"})
# A word that is no option: it does not begin with `-`, however it is quoted (`"-f"` and `\-f`
# are `-f` to the program) and holds no shell operator (in raw text `origin;` ends a command).
# `--` begins with `-`, so nothing after it is read as an option.
_NOT_OPTION = (
    r"""(?:[^\s\\'";&|<>()-]|\\[^\s-]|'[^'-][^']*'|"(?:[^"\\-]|\\[^-])(?:[^"\\]|\\[\s\S])*")"""
    r"""(?:[^\s\\'";&|<>()]|\\[\s\S]|'[^']*'|"(?:[^"\\]|\\[\s\S])*")*"""
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
        forms.append(rf"-{flag}*{valued}(?:\s+{SHELL_WORD}|{SHELL_WORD})")
    forms.append(rf"-{flag}+")
    if table.valued_long:
        forms.append(rf"(?:{_alternation(table.valued_long)})(?:={SHELL_WORD}?|\s+{SHELL_WORD})")
    if table.flags_long:
        forms.append(rf"(?:{_alternation(table.flags_long)})(?:={SHELL_WORD}?)?")
    if table.attached_only:
        forms.append(rf"(?:{_alternation(table.attached_only)})={SHELL_WORD}?")
    forms.append(rf"--[a-z][a-z0-9-]*={SHELL_WORD}?")
    if table.plus_words:
        forms.append(rf"\+{SHELL_WORD}")
    return rf"(?:\s+(?:{'|'.join(forms)}))*"


@dataclass(frozen=True)
class Option:
    """One option under all its names."""

    shorts: str  # its one-letter names (`rR`)
    longs: tuple[str, ...]  # its long names (`--recursive`)
    valued: bool  # it takes a value (the next word, `=value`, or attached to a short name)

    def names(self) -> list[str]:
        return [f"-{letter}" for letter in self.shorts] + list(self.longs)


# Options that are one option under several names, per program or per program and subcommand,
# as each manual lists them (GNU coreutils, grep, sed, tar, curl; `git help <sub>`, `npm help
# <sub>`, `pip help install`, `docker run --help`, `cargo help build`, ...). One entry per
# option: its names, and `VALUE` when it takes one. A name listed alone is an option a flag
# region may hold between the literal's own (`rm -r --one-file-system -f`). Look-alikes stay
# apart: grep's `-r` is not `-R` (which follows links), ls is absent (`-r` reverses, `-R`
# recurses), git's `-D` is two options (`--delete --force`) and is not listed.
OPTION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "rm": (
        "-r -R --recursive",
        "-f --force",
        "-v --verbose",
        "-d --dir",
        "--one-file-system",
        "--no-preserve-root",
        "--preserve-root",
    ),
    "cp": (
        "-r -R --recursive",
        "-f --force",
        "-i --interactive",
        "-n --no-clobber",
        "-v --verbose",
        "-a --archive",
        "-l --link",
        "-s --symbolic-link",
        "-u --update",
        "-L --dereference",
        "-P --no-dereference",
        "-x --one-file-system",
        "-t --target-directory VALUE",
    ),
    "mv": (
        "-f --force",
        "-i --interactive",
        "-n --no-clobber",
        "-v --verbose",
        "-u --update",
        "-t --target-directory VALUE",
    ),
    "mkdir": ("-p --parents", "-v --verbose", "-m --mode VALUE"),
    "chmod": ("-R --recursive", "-v --verbose", "-c --changes", "-f --silent --quiet"),
    "chown": ("-R --recursive", "-v --verbose", "-c --changes", "-f --silent --quiet"),
    "ln": ("-s --symbolic", "-f --force", "-n --no-dereference", "-v --verbose", "-r --relative"),
    "grep": (
        "-r --recursive",
        "-R --dereference-recursive",
        "-i --ignore-case",
        "-n --line-number",
        "-l --files-with-matches",
        "-L --files-without-match",
        "-v --invert-match",
        "-E --extended-regexp",
        "-F --fixed-strings",
        "-w --word-regexp",
        "-x --line-regexp",
        "-c --count",
        "-o --only-matching",
        "-q --quiet --silent",
        "-s --no-messages",
        "-H --with-filename",
        "-h --no-filename",
        "-e --regexp VALUE",
    ),
    "sed": (
        "-n --quiet --silent",
        "-E -r --regexp-extended",
        "-s --separate",
        "-z --null-data",
        "-e --expression VALUE",
    ),
    "tar": (
        "-x --extract --get",
        "-c --create",
        "-t --list",
        "-z --gzip --gunzip --ungzip",
        "-j --bzip2",
        "-J --xz",
        "-v --verbose",
        "-f --file VALUE",
        "-C --directory VALUE",
    ),
    "curl": (
        "-s --silent",
        "-S --show-error",
        "-L --location",
        "-f --fail",
        "-k --insecure",
        "-O --remote-name",
        "-I --head",
        "-i --include",
        "-v --verbose",
        "-o --output VALUE",
        "-X --request VALUE",
    ),
    "git add": (
        "-A --all",
        "-u --update",
        "-f --force",
        "-n --dry-run",
        "-p --patch",
        "-v --verbose",
        "-N --intent-to-add",
    ),
    "git branch": (
        "-d --delete",
        "-m --move",
        "-c --copy",
        "-a --all",
        "-r --remotes",
        "-f --force",
        "-v --verbose",
        "-l --list",
    ),
    "git checkout": ("-f --force", "-q --quiet", "-p --patch"),
    "git clean": (
        "-f --force",
        "-n --dry-run",
        "-q --quiet",
        "-i --interactive",
        "-e --exclude VALUE",
    ),
    "git clone": ("-b --branch VALUE", "-o --origin VALUE", "-q --quiet", "-n --no-checkout"),
    "git commit": (
        "-a --all",
        "-m --message VALUE",
        "-F --file VALUE",
        "-C --reuse-message VALUE",
        "-n --no-verify",
        "-q --quiet",
        "-v --verbose",
        "-s --signoff",
        "-e --edit",
        "-p --patch",
    ),
    "git fetch": ("-p --prune", "-f --force", "-q --quiet", "-t --tags"),
    "git pull": ("-r --rebase", "-f --force", "-q --quiet"),
    "git push": (
        "-f --force",
        "-u --set-upstream",
        "-n --dry-run",
        "-d --delete",
        "-q --quiet",
        "-v --verbose",
    ),
    "git reset": ("-q --quiet", "-p --patch"),
    "git rm": ("-f --force", "-n --dry-run", "-q --quiet"),
    "git tag": ("-a --annotate", "-d --delete", "-f --force", "-s --sign", "-m --message VALUE"),
    "npm install": (
        "-g --global",
        "-D --save-dev",
        "-E --save-exact",
        "-O --save-optional",
        "-P --save-prod",
        "-f --force",
    ),
    "npm uninstall": ("-g --global", "-D --save-dev"),
    "pnpm add": ("-g --global", "-D --save-dev", "-E --save-exact", "-O --save-optional"),
    "yarn add": ("-D --dev", "-E --exact", "-O --optional", "-P --peer"),
    "pip install": (
        "-U --upgrade",
        "-I --ignore-installed",
        "-q --quiet",
        "-v --verbose",
        "-e --editable VALUE",
        "-r --requirement VALUE",
        "-t --target VALUE",
    ),
    "docker run": (
        "-d --detach",
        "-i --interactive",
        "-t --tty",
        "-e --env VALUE",
        "-p --publish VALUE",
        "-v --volume VALUE",
        "-w --workdir VALUE",
        "-u --user VALUE",
    ),
    "docker build": ("-q --quiet", "-t --tag VALUE", "-f --file VALUE"),
    "docker rm": ("-f --force", "-v --volumes"),
    "kubectl apply": ("-R --recursive", "-f --filename VALUE", "-k --kustomize VALUE"),
    "kubectl delete": ("-R --recursive", "-A --all-namespaces", "-f --filename VALUE"),
    "cargo build": ("-r --release", "-q --quiet", "-v --verbose", "-p --package VALUE"),
    "cargo test": ("-r --release", "-q --quiet", "-v --verbose", "-p --package VALUE"),
    "cargo run": ("-r --release", "-q --quiet", "-v --verbose", "-p --package VALUE"),
}
OPTION_SYNONYMS["pip3 install"] = OPTION_SYNONYMS["pip install"]

# The most alternatives a flag region's pattern may list (orders times names: two options with
# long names, or one of three); beyond it the long names are left out and the short ones kept,
# so a pattern stays a few KB.
MAX_REGION_FORMS = 16


def options_of(key: str) -> list[Option]:
    """The declared options of a program (`rm`) or a subcommand (`git commit`)."""
    found = []
    for entry in OPTION_SYNONYMS.get(key, ()):
        names = entry.split()
        valued = names[-1] == "VALUE"
        names = [n for n in names if n != "VALUE"]
        shorts = "".join(n[1] for n in names if not n.startswith("--"))
        found.append(Option(shorts, tuple(n for n in names if n.startswith("--")), valued))
    return found


def _option_named(options: list[Option], name: str) -> Option | None:
    return next((o for o in options if name in o.names()), None)


def _flag_options(words: list[str], options: list[Option], valued: str) -> list[Option] | None:
    """The options of a literal's leading flag words (`-rf`, `-r -f`, `--recursive -f`), when
    they can be reordered: flags only, each once, a few; else None (the literal keeps its
    order)."""
    wanted: list[Option] = []
    for word in words:
        if word.startswith("--"):
            option = _option_named(options, word)
            if option is None or option.valued:
                return None
            wanted.append(option)
            continue
        for letter in word[1:]:
            if letter in valued:
                return None
            wanted.append(_option_named(options, f"-{letter}") or Option(letter, (), False))
    if not wanted or len(set(wanted)) != len(wanted) or len(wanted) > MAX_CLUSTER_FLAGS:
        return None
    return wanted


def _flag_region(wanted: list[Option], options: list[Option], valued: str) -> str:
    """Flag words holding every wanted option under any of its names, in any cluster and order,
    with other flags among them: `-rf`, `-fr`, `-r -f`, `-rfv`, `-R --force`, `--recursive -vf`."""
    flag = _flag_class(valued)
    orders = list(itertools.permutations(wanted))
    # Beyond the bound only short names are read (the session-17 pattern, with `[rR]` classes).
    with_longs = len(orders) * 2 ** sum(1 for o in wanted if o.longs) <= MAX_REGION_FORMS
    known = [name for o in options if not o.valued for name in o.longs] if with_longs else []
    word_junk = rf"(?:\s+-{flag}+" + (rf"|\s+(?:{_alternation(' '.join(known))})" if known else "")
    word_junk += ")*"
    cluster_junk = rf"(?:{flag}|{word_junk}\s+-)*"
    alternatives = []
    for order in orders:
        choices = [
            [form for form in ("short", "long") if (o.shorts if form == "short" else o.longs)]
            if with_longs
            else ["short"]
            for o in order
        ]
        for forms in itertools.product(*choices):
            text, in_cluster = "", False
            for option, form in zip(order, forms, strict=True):
                if form == "short":
                    opener = "" if in_cluster else word_junk + r"\s+-"
                    text += opener + cluster_junk + "[" + option.shorts + "]"
                    in_cluster = True
                else:
                    closer = f"{flag}*" if in_cluster else ""
                    text += (
                        closer + word_junk + r"\s+(?:" + _alternation(" ".join(option.longs)) + ")"
                    )
                    in_cluster = False
            alternatives.append(text + (f"{flag}*" if in_cluster else "") + word_junk)
    return "(?:" + "|".join(alternatives) + ")"


def _ordered(words: list[str], options: list[Option]) -> str:
    """The pattern of words kept in their order, each with its leading space: an option under
    any of its names (`-m x`, `-mx`, `--message x`, `--message=x`), any other word as it is
    (quoted however bash takes it back)."""
    pieces: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        option = _option_named(options, word) if word.startswith("-") else None
        if option is None:
            pieces.append(word_forms(word))
        elif not option.valued or index + 1 == len(words):
            pieces.append("(?:" + _alternation(" ".join(option.names())) + ")")
        else:
            index += 1
            value = word_forms(words[index])
            forms = [rf"-{letter}(?:\ |){value}" for letter in option.shorts]
            forms += [rf"{name}(?:\ |=){value}" for name in option.longs]
            pieces.append("(?:" + "|".join(forms) + ")")
        index += 1
    return "".join(r"\ " + piece for piece in pieces)


def _interspersed(flags: list[Option], options: list[Option]) -> str:
    """A subcommand's flags in the literal's order, each under any of its names, with other
    words before each: words that are no option, the subcommand's known flags, `--name=value`.
    An unknown option or a valued one between them is not read past (it might take the next
    word as its value), nor is `--`."""
    known = " ".join(name for o in options if not o.valued for name in o.names())
    other = rf"(?:\s+(?:{_NOT_OPTION}|(?:{_alternation(known)})|--[a-z][a-z0-9-]*={SHELL_WORD}?))*"
    return "".join(other + r"\s+(?:" + _alternation(" ".join(flag.names())) + ")" for flag in flags)


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


def _words(command: str) -> list[str]:
    """The literal's words as bash reads them (`"my dir"` is one word); as split on spaces
    when its quotes do not close."""
    try:
        return shlex.split(command) or command.split()
    except ValueError:
        return command.split()


def _pattern(command: str) -> str:
    words = _words(command)
    program, rest = words[0], words[1:]
    start = rf"(?:^|[^\w-]){re.escape(program)}"
    end = r"(?:$|[^\w-])"
    if program in LEADING_OPTIONS and rest and not rest[0].startswith(("-", "+")):
        options = options_of(f"{program} {rest[0]}")
        head = start + leading_options(program) + r"\s+" + word_forms(rest[0])
        named = [_option_named(options, w) for w in rest[1:]]
        flags_only = [o for o in named if o is not None and not o.valued]
        if program in INTERSPERSED and rest[1:] and len(flags_only) == len(named):
            return head + _interspersed(flags_only, options) + end
        return head + _ordered(rest[1:], options) + end
    options = options_of(program)
    model = command_models().get(program)
    flags = list(
        itertools.takewhile(
            lambda w: (
                re.fullmatch(r"-[A-Za-z]+", w) is not None
                or (w.startswith("--") and _option_named(options, w) is not None)
            ),
            rest,
        )
    )
    if model is not None and flags:
        wanted = _flag_options(flags, options, model.short_values)
        if wanted is not None:
            region = _flag_region(wanted, options, model.short_values)
            return start + region + _ordered(rest[len(flags) :], options) + end
    return start + _ordered(rest, options) + end
