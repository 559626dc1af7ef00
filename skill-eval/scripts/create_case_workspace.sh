#!/usr/bin/env bash
# create_case_workspace.sh "<source_workspace>" "<case_workspace_root>" "<case_id>" --target "<target_id>" [--run-id RUN] [...]
# Creates one fresh attempt workspace for the case (agentic-eval attempt new) and prints its path.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 <source_workspace> <case_workspace_root> <case_id> --target <target_id> [--run-id RUN]" >&2
  exit 2
fi
source_workspace=$1 case_workspace_root=$2 case_id=$3
shift 3
# The first line is the workspace. `sed -n 1p`, not `head -n 1`: head exits after that line, and
# the command's next write then fails (EPIPE, exit 1 under pipefail) whenever head has gone.
agentic-eval attempt new "$case_id" \
  --source-workspace "$source_workspace" \
  --repo "$source_workspace/agentic-evals" \
  --case-workspace-root "$case_workspace_root" \
  "$@" | sed -n 1p
