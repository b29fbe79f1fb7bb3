#!/bin/bash
# TestInstallScript's body, run as root under `unshare --mount`:
#   install_ns.sh WORK REPO BINARY
# /etc, /usr/local and /var/lib become overlays whose changes land in WORK,
# so useradd, the installed files and the state dir vanish with the
# namespace. Prints key=value lines the test checks.
set -euo pipefail
work=$1 repo=$2 binary=$3

for d in /etc /usr/local /var/lib; do
  n=${d//\//_}
  mkdir -p "$work/ov/$n/u" "$work/ov/$n/w"
  if ! mount -t overlay overlay -o "lowerdir=$d,upperdir=$work/ov/$n/u,workdir=$work/ov/$n/w" "$d" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount an overlay on $d here: $(cat "$work/mount.err")"
    exit 0
  fi
done
if getent passwd hyphae >/dev/null; then
  echo "SKIP: this machine has a hyphae user already"
  exit 0
fi

# The docs' command, twice: the second run is an upgrade in place.
sh "$repo/scripts/install.sh" --binary "$binary"
sh "$repo/scripts/install.sh" --binary "$binary"

st() { stat -c '%U %G %a' "$1"; }
echo "stat_state=$(st /var/lib/hyphae)"
echo "stat_key=$(st /var/lib/hyphae/actor.key)"
echo "stat_config=$(st /var/lib/hyphae/hyphae.yaml)"
echo "stat_bin=$(st /usr/local/bin/hyphae)"
echo "stat_unit=$(st /etc/systemd/system/hyphae.service)"
echo "user_shell=$(getent passwd hyphae | cut -d: -f7)"
as() { (cd / && runuser -u hyphae -- "$@"); }
echo "id_as_hyphae=$(as hyphae id --json --data-dir /var/lib/hyphae | sed -n 's/.*"peer_id": *"\([^"]*\)".*/\1/p')"

# The agent runs as hyphae on its state dir (what the unit's ExecStart
# does), on loopback only so that it meets no other test's agent, with
# mDNS and port mapping off (the test checks info.out says so).
# setsid: its own process group, so that whatever is left of it (runuser,
# the agent, its redis-server) is killed however this script ends.
(cd / && exec setsid runuser -u hyphae -- /usr/local/bin/hyphae run --data-dir /var/lib/hyphae \
  --api off --no-mdns --no-nat-portmap --listen /ip4/127.0.0.1/tcp/0) >"$work/agent.log" 2>&1 &
agent=$!
trap 'kill -KILL -- "-$agent" 2>/dev/null || true' EXIT
info=no
for _ in $(seq 1 120); do # until the agent answers, at most a minute
  if as /usr/local/bin/hyphae info --json --data-dir /var/lib/hyphae >"$work/info.out" 2>&1; then
    info=ok
    break
  fi
  kill -0 "$agent" 2>/dev/null || break
  sleep 0.5
done
echo "agent_user=$(ps -o user= -p "$(pgrep -P "$agent" -x hyphae || echo "$agent")" | tr -d ' ')"
echo "agent_info=$info"
[ "$info" = ok ] || { echo "agent log:"; cat "$work/agent.log"; cat "$work/info.out"; }
kill -TERM "$(pgrep -P "$agent" -x hyphae || echo "$agent")" 2>/dev/null || true
wait "$agent" || true

# The unit's first start on an empty state dir, as systemd runs it:
# StateDirectory= makes /var/lib/hyphae for User=, then ExecStartPre
# runs as that user.
unit=/etc/systemd/system/hyphae.service
echo "unit_user=$(sed -n 's/^User=//p' "$unit")"
echo "unit_state_dir=$(sed -n 's/^StateDirectory=//p' "$unit")"
rm -rf /var/lib/hyphae
install -d -m 0750 -o hyphae -g hyphae /var/lib/hyphae
pre=$(sed -n 's/^ExecStartPre=//p' "$unit")
as sh -c "$pre"
echo "prestart_key=$(st /var/lib/hyphae/actor.key)"
as sh -c "$pre" && echo "prestart_again=ok"

if command -v systemd-analyze >/dev/null; then
  rc=0
  systemd-analyze verify "$unit" || rc=$?
  echo "verify=$rc"
fi
