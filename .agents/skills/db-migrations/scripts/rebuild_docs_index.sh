#!/usr/bin/env bash
# Print the docs index (one line per reference: file name and first heading).
# It prints instead of writing because the skill directory is read-only inside agent sandboxes.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../references" && pwd)"
echo "# db-migrations docs index"
for f in "$dir"/*.md; do
  printf '%-18s %s\n' "$(basename "$f")" "$(head -n 1 "$f" | sed 's/^# //')"
done
