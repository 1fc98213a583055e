#!/usr/bin/env bash
# The pager in about a minute, on embedded defaults (SQLite, the offline `rules` provider, the `file`
# channel) in a throwaway home under .svc-demo/: an alert opens a page, alice is paged, nobody answers
# and it escalates to bob, bob acknowledges through the link in his message, Alertmanager's resolve
# closes the page and everyone is told; then `svc explain` tells the story and the audit chain is
# verified. Ports: SVC_DEMO_PORT (8787), SVC_DEMO_CONTROL_PORT (9464), SVC_DEMO_ACK_PORT (8790).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
demo=${SVC_DEMO_DIR:-$root/.svc-demo}
port=${SVC_DEMO_PORT:-8787}
control_port=${SVC_DEMO_CONTROL_PORT:-9464}
ack_port=${SVC_DEMO_ACK_PORT:-8790}
export SVC_HOME="$demo/home"
unset SVC_METRICS_PORT # it would win over the control plane's port in agent.yaml

svc() { node "$root/dist/main.js" "$@"; }
# A step of the story (bold on a terminal, unless NO_COLOR), then the commands it runs, as you would type them.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '$ svc %s\n' "$*"; svc "$@"; }
# The messages people got (one JSON line each in out/oncall-dm.jsonl), from line $1 on: who, and the text.
messages_from() {
  node -e '
    const lines = require("fs").readFileSync("out/oncall-dm.jsonl", "utf8").split("\n").filter(Boolean).slice(Number(process.argv[1]) - 1);
    for (const m of lines.map((l) => JSON.parse(l))) console.log(`-> to ${m.to}:\n${m.text.replace(/^/gm, "   ")}`);' "$1"
}
# Waits (at most 60 s) until some message to $1 contains $2.
wait_for_message() {
  for _ in $(seq 1 600); do
    grep -q "\"to\":\"$1\".*$2" out/oncall-dm.jsonl 2>/dev/null && return 0
    sleep 0.1
  done
  echo "demo: no message to $1 with $2 after 60 s (see $SVC_HOME/up.log)" >&2
  return 1
}
# A field of the last message to $1: `node -p` reads it from the JSON line.
last_to() { grep "\"to\":\"$1\"" out/oncall-dm.jsonl | tail -1 | node -p "JSON.parse(require('fs').readFileSync(0, 'utf8')).$2"; }
# What a browser does with a link: GET shows the page, POST submits its form. Prints the status and the page's words.
browse() {
  node -e '
    const [method, url] = process.argv.slice(1);
    fetch(url, method === "POST" ? { method, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" } : {})
      .then(async (r) => console.log(`HTTP ${r.status}: ${(await r.text()).replace(/<(title|style)>[^<]*<\/\1>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()}`))
      .finally(() => process.exit());' "$1" "$2"
}

rm -rf "$demo"
mkdir -p "$demo"
cd "$demo"

step "1. Scaffold an agent: a webhook for Alertmanager, a file channel standing in for people's phones"
run init --template alert-escalation --provider rules --port "$port" --control-port "$control_port" pager
cd pager

step "2. Who is paged: alice is on call; if she does not acknowledge within 5 s, bob is paged"
cat > oncall.yaml <<'EOF'
people:
  - { id: alice, contacts: { oncall-dm: alice } }   # her address on the file channel
  - { id: bob, contacts: { oncall-dm: bob } }
schedules:
  - id: primary
    timeZone: UTC
    rotations:
      - { people: [alice], every: 1w, handoff: 2026-01-05T09:00 }
policies:
  - id: default
    steps:                                          # (minutes in real life; seconds for the demo)
      - { notify: [schedule:primary], after: 5s }   # no acknowledgement in 5 s: the next step
      - { notify: [person:bob], after: 30s }
routes:
  - { match: { severity: [P1, P2] }, policy: default }
EOF
cat oncall.yaml
echo "# and one-time ack links in every page message (an ack source with a key of its own):"
node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))' | svc secret set ack/link-key
cat >> event-sources.yaml <<EOF
  - id: ack-links
    type: ack
    port: $ack_port
    secret: \${secret:ack/link-key}
EOF
tail -4 event-sources.yaml

step "3. Start the daemon (it validates everything first) and list its listeners"
run up -d
trap 'step "9. Stop"; run down' EXIT
run ps

step "4. An alert fires: Alertmanager's notification, signed, to the webhook"
sent=$(svc webhook send fixtures/mock-alert.json)
printf '$ svc webhook send fixtures/mock-alert.json\n%s\n' "$sent"
event=$(printf '%s' "$sent" | sed -n 's/.*"eventId":"\([^"]*\)".*/\1/p')
wait_for_message alice opened
echo "The page opened and alice, on call, was paged:"
messages_from 1
page=$(last_to alice pageId)

step "5. Nobody answers: 5 s later the page escalates to bob, and alice hears whom it pages now"
wait_for_message bob step
wait_for_message alice '"pageKind":"escalated-past"'
messages_from 2

step "6. Bob acknowledges with the link in his message (what his browser does)"
link=$(last_to bob links.ack)
echo "Opening the link shows a confirm page and changes nothing (mail scanners open links too):"
echo "GET $link"
browse GET "$link"
echo "Its Acknowledge button posts the form; the link acts once:"
echo "POST $link"
browse POST "$link"
run page "$page" | sed -n '1,3p'
echo "Everyone paged hears of the ack:"
wait_for_message alice '"pageKind":"acknowledged"'
wait_for_message bob '"pageKind":"acknowledged"'
messages_from 4

step "7. The alert resolves: Alertmanager's resolved notification closes the page, and everyone is told"
printf '$ svc webhook send fixtures/mock-alert-resolved.json\n'
svc webhook send fixtures/mock-alert-resolved.json
wait_for_message alice resolved
wait_for_message bob resolved
messages_from 6

step "8. The story of the alert, from the hash-chained audit trail, and the chain verified"
run explain "$event"
run audit --verify
echo "Everything is in $demo: the agent in pager/, its \$SVC_HOME in home/."
