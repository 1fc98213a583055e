#!/usr/bin/env bash
# The main job on embedded defaults (SQLite, the offline `rules` provider, the `file` channel), in a
# throwaway home under .svc-demo/: scaffold, start, post the signed mock alert twice, show the result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
svc() { node "$root/dist/main.js" "$@"; }
demo="$root/.svc-demo"
export SVC_HOME="$demo/home"
rm -rf "$demo"
mkdir -p "$demo"
cd "$demo"

echo "== svc init --template alert-escalation --provider rules"
svc init --template alert-escalation --provider rules
cd alert-escalation
svc down >/dev/null
echo "== svc up -d"
svc up -d
trap 'echo "== svc down"; svc down' EXIT

echo "== svc webhook send fixtures/mock-alert.json (first delivery, then the same fingerprint again)"
svc webhook send fixtures/mock-alert.json
svc webhook send fixtures/mock-alert.json

for _ in $(seq 1 100); do [ -s out/oncall-dm.jsonl ] && break; sleep 0.1; done
echo "== the direct message the on-call person got (out/oncall-dm.jsonl)"
cat out/oncall-dm.jsonl
echo "== the agent's log (\$SVC_HOME/logs/oncall-escalator.log)"
cat "$SVC_HOME/logs/oncall-escalator.log"
echo "== svc ps"
svc ps
echo "== svc audit --verify"
svc audit --verify
