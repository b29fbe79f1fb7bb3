#!/bin/bash
# TestPackage's body, run as root under `unshare --mount`:
#   package_ns.sh WORK A.deb B.deb
# An overlay of / whose changes land in a tmpfs becomes a clean root, and
# the rest runs chrooted in it (package_ns.sh inside): dpkg -i, the
# service, the upgrade and the removal happen for real, and the machine
# sees none of it. Prints key=value lines the test checks.
set -euo pipefail

if [ "${1:-}" != inside ]; then
  work=$1 deb_a=$2 deb_b=$3
  root=$work/root
  mkdir -p "$work/ov" "$root"
  mount -t tmpfs tmpfs "$work/ov"
  mkdir -p "$work/ov/u" "$work/ov/w"
  if ! mount -t overlay overlay -o "lowerdir=/,upperdir=$work/ov/u,workdir=$work/ov/w" "$root" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount an overlay of / here: $(cat "$work/mount.err")"
    exit 0
  fi
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  # No /run/systemd/system in the root: the maintainer scripts see no
  # systemd, as in a container, and the test plays systemd.
  mount -t tmpfs tmpfs "$root/run"
  mount -t tmpfs tmpfs "$root/tmp"
  cp "$deb_a" "$root/tmp/a.deb"
  cp "$deb_b" "$root/tmp/b.deb"
  cp "$0" "$root/tmp/package_ns.sh"
  exec chroot "$root" /bin/bash /tmp/package_ns.sh inside
fi

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
if getent passwd hyphae >/dev/null || [ -e /var/lib/hyphae ] || dpkg-query -W hyphae >/dev/null 2>&1; then
  echo "SKIP: this machine has a hyphae user, /var/lib/hyphae or a hyphae package already"
  exit 0
fi
STATE=/var/lib/hyphae
unit=/lib/systemd/system/hyphae.service
st() { stat -c '%U %G %a' "$1"; }
as() { (cd / && runuser -u hyphae -- "$@"); }
peer() { as /usr/bin/hyphae id --json --data-dir "$STATE" | sed -n 's/.*"peer_id": *"\([^"]*\)".*/\1/p'; }

# start: the unit as systemd runs it, read from the installed unit: as
# User=, with its Environment=, ExecStartPre then ExecStart. setsid: its
# own process group, so that whatever is left of it is killed however
# this script ends.
agent=
start() {
  local user env pre exe
  user=$(sed -n 's/^User=//p' "$unit")
  env=$(sed -n 's/^Environment=//p' "$unit" | tr '\n' ' ')
  pre=$(sed -n 's/^ExecStartPre=//p' "$unit")
  exe=$(sed -n 's/^ExecStart=//p' "$unit")
  # shellcheck disable=SC2086 # Environment= is K=V words
  (cd / && runuser -u "$user" -- env $env sh -c "$pre")
  # shellcheck disable=SC2086
  (cd / && exec setsid runuser -u "$user" -- env $env sh -c "exec $exe") >>/tmp/agent.log 2>&1 &
  agent=$!
  for _ in $(seq 1 120); do # until the agent answers, at most a minute
    if as /usr/bin/hyphae info --json --data-dir "$STATE" >/tmp/info.out 2>&1; then
      return 0
    fi
    kill -0 "$agent" 2>/dev/null || break
    sleep 0.5
  done
  echo "the agent did not answer:"; cat /tmp/agent.log /tmp/info.out
  return 1
}
# stop: what systemctl stop does with KillMode=mixed: SIGTERM to the
# agent alone, then, once it has exited, whatever is left.
stop() {
  kill -TERM "$(pgrep -P "$agent" -x hyphae || echo "$agent")" 2>/dev/null || true
  wait "$agent" || true
  kill -KILL -- "-$agent" 2>/dev/null || true
  agent=
}
trap '[ -z "$agent" ] || kill -KILL -- "-$agent" 2>/dev/null || true' EXIT

# Install A on the clean root.
dpkg -i /tmp/a.deb
echo "a_version=$(dpkg-query -W -f='${Version}' hyphae)"
echo "a_status=$(dpkg-query -W -f='${db:Status-Abbrev}' hyphae | tr -d ' ')"
echo "conffiles=$(dpkg-query -W -f='${Conffiles}' hyphae | awk 'NF { print $1 }' | tr '\n' ' ' | sed 's/ $//')"
echo "stat_bin=$(st /usr/bin/hyphae)"
echo "stat_unit=$(st "$unit")"
echo "stat_config=$(st /etc/hyphae/hyphae.yaml)"
echo "stat_state=$(st "$STATE")"
echo "stat_key=$(st "$STATE/actor.key")"
echo "config_link=$(readlink "$STATE/hyphae.yaml")"
echo "user_shell=$(getent passwd hyphae | cut -d: -f7)"
echo "user_home=$(getent passwd hyphae | cut -d: -f6)"
echo "unit_user=$(sed -n 's/^User=//p' "$unit")"
echo "unit_exec=$(sed -n 's/^ExecStart=//p' "$unit")"
echo "peer_installed=$(peer)"

# The admin's change to the packaged config, which the upgrade keeps: the
# agent on loopback only, so that it meets no other test's agent, with no
# TCP API, mDNS or port mapping (the test checks info says so).
conf=/etc/hyphae/hyphae.yaml
sed -i -e 's#^  listen: 127.0.0.1:9652 #  listen: "off" #' \
  -e 's#^  listen: \[/ip4/0.0.0.0/tcp/4001, .*\]#  listen: [/ip4/127.0.0.1/tcp/0]#' \
  -e 's#^  mdns: true #  mdns: false #' -e 's#^  nat_port_map: true #  nat_port_map: false #' "$conf"
echo "# changed by TestPackage" >>"$conf"
echo "config_changes=$(grep -c -e '^  listen: "off"' -e '^  listen: \[/ip4/127.0.0.1/tcp/0\]' -e '^  mdns: false' -e '^  nat_port_map: false' "$conf")"

start
echo "info_a=$(tr -d '\n' </tmp/info.out)"
echo "agent_user=$(ps -o user= -p "$(pgrep -u hyphae -x hyphae | head -1)" | tr -d ' ')"
as /usr/bin/hyphae context create --id 1 --data-dir "$STATE" >/dev/null
job=$(as /usr/bin/hyphae job run --data-dir "$STATE" --context 1 --type sh --wait \
  --script 'echo "greeting=hello from the package" >>"$HYPHAE_RESULT"' 2>/tmp/job.err) || {
  echo "job failed:"; cat /tmp/job.err
}
echo "job_a=$(echo "$job" | tr '\n' ' ')"
stop

# Upgrade to B: the key, the data and the changed config stay.
key_sum=$(sha256sum <"$STATE/actor.key")
dpkg -i --force-confdef --force-confold /tmp/b.deb
echo "b_version=$(dpkg-query -W -f='${Version}' hyphae)"
echo "b_status=$(dpkg-query -W -f='${db:Status-Abbrev}' hyphae | tr -d ' ')"
echo "b_config_kept=$(grep -c '^# changed by TestPackage$' "$conf")"
echo "b_key_kept=$([ "$(sha256sum <"$STATE/actor.key")" = "$key_sum" ] && echo yes || echo no)"
start
echo "info_b=$(tr -d '\n' </tmp/info.out)"
job=$(as /usr/bin/hyphae job list --data-dir "$STATE" --context 1 2>&1 || true)
echo "jobs_b=$(echo "$job" | tr '\n' ' ')"
stop

# Remove: the binary and the unit go, the data dir, the key and the
# changed config (a conffile) stay.
dpkg -r hyphae
echo "r_status=$(dpkg-query -W -f='${db:Status-Abbrev}' hyphae | tr -d ' ')"
echo "r_bin=$([ -e /usr/bin/hyphae ] && echo present || echo gone)"
echo "r_unit=$([ -e "$unit" ] && echo present || echo gone)"
echo "r_key_kept=$([ "$(sha256sum <"$STATE/actor.key")" = "$key_sum" ] && echo yes || echo no)"
echo "r_state=$(st "$STATE")"
echo "r_config=$(grep -c '^# changed by TestPackage$' "$conf")"
echo "r_user=$(getent passwd hyphae | cut -d: -f1)"

# Purge: the data and the config go too; the system user stays.
dpkg --purge hyphae
echo "p_state=$([ -e "$STATE" ] && echo present || echo gone)"
echo "p_config=$([ -e "$conf" ] && echo present || echo gone)"
echo "p_user=$(getent passwd hyphae | cut -d: -f1)"
