"""Commands that copy or move files: the sources are read, the destination written."""

from __future__ import annotations

from evaluator.evidence.shell.model import model
from evaluator.evidence.shell.registry import table

table(
    {
        "cp install": model(
            "read",
            last="write",
            last_unless="-t --target-directory",
            short="tSmogb",
            long="--target-directory --suffix --mode --owner --group --backup --reflink"
            " --sparse --preserve --no-preserve --context",
            roles={"-t": "write", "--target-directory": "write"},
        ),
        "mv": model(
            "write",
            short="tS",
            long="--target-directory --suffix --backup",
            roles={"-t": "write", "--target-directory": "write"},
        ),
        "rsync": model(
            "read",
            last="write",
            short="e",
            long="--rsh --exclude --include --exclude-from --include-from --files-from"
            " --rsync-path --backup-dir --temp-dir --log-file --password-file --chmod --filter",
            roles={
                "-e": "opaque",
                "--rsh": "opaque",
                "--rsync-path": "opaque",
                "--exclude-from": "read",
                "--include-from": "read",
                "--files-from": "read",
                "--backup-dir": "write",
                "--temp-dir": "write",
                "--log-file": "write",
                "--password-file": "read",
            },
        ),
    }
)
