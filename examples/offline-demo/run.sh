#!/usr/bin/env bash
# Plan and execute the offline demo in a fresh temporary project, then show the result.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(mktemp -d)
cd "$project"
wfs init
wfs plan "Offline demo" --from "$here/plan.json"
wfs execute --all --agent "$here/agent.sh"
echo
cat .workflow/WFS-offline-demo/TODO_LIST.md
echo "Project left in $project"
