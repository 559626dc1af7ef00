"""A command literal's pattern (docs/criteria.md, "Command literals"): the program's own options
before its subcommand, and short flags in any cluster or order, are the same command; an
option's value, another subcommand or a flag the literal lacks are not. Before session 17 only
git's options were known, so a forbidden `npm publish` missed `npm --prefix app publish` and a
forbidden `rm -rf` missed `rm -fr` and `rm -r -f`."""

from __future__ import annotations

import re

import pytest

from evaluator.judge.command_pattern import command_literal, command_pattern
from evaluator.judge.literal_checks import literal_command

SAME = {
    "npm publish": [
        "npm publish",
        "npm --prefix app publish",
        "npm --prefix=app publish",
        "npm -C app publish",
        "npm -g --loglevel silent publish --tag next",
        "/usr/bin/npm publish",
        "cd a && npm --silent publish",
    ],
    "rm -rf": [
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -f -r x",
        "rm -rfv x",
        "rm -v -fr x",
        # an option under its other names (session 18)
        "rm -Rf x",
        "rm -fR x",
        "rm -R -f x",
        "rm --recursive --force x",
        "rm --force -r x",
        "rm -f --recursive x",
        "rm -v --recursive -f x",
        "rm -r --one-file-system -f x",
    ],
    "rm -rf node_modules": ["rm -fr node_modules", "rm -r -f node_modules", "rm -rf node_modules"],
    "docker run": ["docker -H tcp://h:2375 run alpine", "docker --context prod run x"],
    "docker run -d": ["docker run -d alpine", "docker run --detach alpine"],
    "make test": ["make test", "make -C app test", "make -j4 test", "make -s test"],
    "pnpm add -g": ["pnpm --dir web add -g x"],
    "terraform apply": ["terraform -chdir=infra apply"],
    "cargo build": ["cargo +nightly build", "cargo -Zunstable-options build"],
    "rm --recursive --force node_modules": ["rm -rf node_modules", "rm -R --force node_modules"],
    "git push --force": [
        "git push --force",
        "git push -f",
        "git -C app push -f origin main",
        # session 19: after other words, where git's option parser reads it the same
        "git push origin -f",
        "git push origin main --force",
        "git push -u origin -f",
    ],
    "npm install -g": ["npm install --global", "npm install -g", "npm install typescript -g"],
    "git commit": [
        "git commit -m x",
        "git -c user.name=x commit",
        "git -C . commit",
        "git --no-pager commit",
        "git --git-dir=.git commit",
        "git --git-dir .git commit",
        'git -C"my dir" commit',  # session 19: a quoted value attached to its option
        "git -C'my dir' commit",
    ],
    "git commit -m wip": [
        "git commit -m wip",
        "git commit -mwip",
        "git commit --message wip",
        "git commit --message=wip",
    ],
    "git commit -m": ["git commit -m x", "git commit --message=x", "git commit --message x"],
    "cp -r src dst": ["cp -R src dst", "cp --recursive src dst", "cp -a -r src dst"],
    "grep -ri todo": ["grep -ir todo", "grep --recursive --ignore-case todo"],
    "ls -r": ["ls -r", "ls -lr"],
}
DIFFERENT = {
    "npm publish": [
        "npm run publish",
        "npm --prefix publish test",  # `publish` is the value of --prefix
        "npm --registry publish",
        "npm publish-it",
        "npm x publish",  # another subcommand
        "echo npm",
    ],
    "rm -rf": [
        "rm -r x",
        "rm -f x",
        "rm -rx",
        "rmdir -rf",
        "rm -R x",
        "rm --recursive x",
        "rm --force x",
        "rm --forced -r x",
        "rm -r --force-all x",
        "rm -r --frobnicate -f x",  # an option rm's table does not know: not read as a flag
    ],
    "rm -rf node_modules": ["rm -rf node_modules2", "rm -rf dist node_modules"],
    "git commit": [
        "git -c alias.ci=commit status",
        "git --git-dir commit status",
        "git -C commit status",
        "git -Ccommit status",
        "git --exec-path commit",  # prints git's path: `commit` is no subcommand of it
        "git log --grep commit",
        "git --no-pager log --oneline --grep commit",
        'git -C"x commit" status',
    ],
    "docker run": ["docker -H run ps", "docker ps run"],
    "make test": ["make -C test lint", "make -j test", "make lint test2"],
    "pnpm add -g": ["pnpm add x"],
    "terraform apply": ["terraform plan -out apply"],
    "cargo build": ["cargo -Z build test"],
    "rm --recursive --force node_modules": ["rm -r node_modules", "rm -rf node_modules2"],
    "git push --force": [
        "git push --force-with-lease",
        "git push --follow-tags",
        "git push -u origin",
        "git push origin -- -f",  # after `--`, `-f` is a refspec
        "git push -o -f origin",  # an option git push's table does not know may take `-f`
        "git push --repo -f",
        'git push origin "-f"',  # not read past a quoted word that begins with `-`
        "git push origin; rm -f x",  # another command
    ],
    "docker run -d": ["docker run alpine -d"],  # docker gives `-d` to the container's command
    "git commit -m wip": [
        "git commit -m wip2",
        "git commit --message-id wip",
        "git commit -F wip",
        "git commit --amend wip",
    ],
    "git commit -m": ["git commit --amend", "git commit --fixup x"],
    # ls's -r reverses, -R recurses; grep's -R follows links: no synonyms of -r
    "cp -r src dst": ["cp -r dst src", "cp -rt src dst"],
    "grep -ri todo": ["grep -Ri todo", "grep --dereference-recursive -i todo"],
    "npm install -g": ["npm install --save-dev", "npm install -D"],
    "ls -r": ["ls -R", "ls --recursive", "ls --reverse"],  # no table: names only as written
}


@pytest.mark.parametrize("literal", sorted(SAME))
def test_the_same_command_written_otherwise_matches(literal: str) -> None:
    pattern = literal_command(literal)
    assert [c for c in SAME[literal] if not re.search(pattern, c)] == []
    assert [c for c in DIFFERENT[literal] if re.search(pattern, c)] == []
    assert command_literal(pattern) == literal


@pytest.mark.parametrize(
    "literal",
    [
        "tar -xzf a.tgz",  # `f` takes a value: `-fxz` would be another command
        "rm -rfvdi x",  # more flags than the orders a pattern lists
        "grep -rr x",  # a letter twice
        "mytool sub",  # a program the tables do not know
        "npm --prefix x publish",  # a literal that already writes options keeps them
    ],
)
def test_a_literal_the_rule_cannot_widen_is_kept_as_written(literal: str) -> None:
    assert command_pattern(literal) == rf"(?:^|[^\w-]){re.escape(literal)}(?:$|[^\w-])"


def test_patterns_have_no_look_arounds() -> None:
    for literal in [*SAME, *DIFFERENT]:
        assert "(?=" not in literal_command(literal) and "(?!" not in literal_command(literal)
        assert "(?<" not in literal_command(literal)
