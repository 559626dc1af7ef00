"""A candidate SKILL.md given as a file (`score --skill FILE`, `triggers --skill FILE`,
`evaluate --candidate FILE`): its text, or one line saying why the file cannot be one.

skill-creator's `package_skill.py` hands skills around as `<name>.skill`, a zip archive of the
folder; a user who passes that archive (or any binary) got `internal error: UnicodeDecodeError`.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.errors import InputError

# Every zip archive starts with a local file header, or an end-of-archive record when empty.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


PACKAGED = (
    "a zip archive (a packaged skill, such as a `.skill` file), not a SKILL.md:"
    " unpack it (`unzip FILE -d DIR`) and give the folder, or the SKILL.md in it"
)


def is_zip_archive(path: Path) -> bool:
    with path.open("rb") as stream:
        return stream.read(4) in _ZIP_MAGIC


def read_candidate_skill(path: Path, field: str) -> str:
    """The text of the candidate SKILL.md at `path`; `field` names the option that gave it."""
    if is_zip_archive(path):
        raise InputError(PACKAGED, path=path, field=field)
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.start}): a candidate SKILL.md is a text file",
            path=path,
            field=field,
        ) from None
