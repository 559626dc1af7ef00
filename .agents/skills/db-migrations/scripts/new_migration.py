#!/usr/bin/env python3
"""Create the next numbered migration file under migrations/ and print its path."""

import re
import sys
from pathlib import Path


def main() -> int:
    if len(sys.argv) != 2 or not re.fullmatch(r"[a-z0-9_]+", sys.argv[1]):
        print("usage: new_migration.py <short_slug>  (lowercase letters, digits, _)", file=sys.stderr)
        return 2
    directory = Path("migrations")
    directory.mkdir(exist_ok=True)
    numbers = [int(p.name[:4]) for p in directory.glob("[0-9][0-9][0-9][0-9]_*.sql")]
    path = directory / f"{max(numbers, default=0) + 1:04d}_{sys.argv[1]}.sql"
    path.write_text(f"-- migration: {sys.argv[1]}\n-- up\n\n-- down\n", encoding="utf-8")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
