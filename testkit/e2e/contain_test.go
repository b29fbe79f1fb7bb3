package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// escapeScript is what a friend holding the executor role in one context
// tried on someone's home-lab agent (issue: contained jobs). Each escape
// that works records leak_<name> in the result; the job's own work
// records ok_<name>. DATA is the agent's data dir, AGENT its pid, OTHER a
// file in another context's job directory.
const escapeScript = `
leak() { echo "leak_$1=$2" >> "$HYPHAE_RESULT"; }
ok() { echo "ok_$1=1" >> "$HYPHAE_RESULT"; }
for f in api.token actor.key hyphae.yaml; do
  cat "$DATA/$f" >/dev/null 2>&1 && leak "$(echo $f | tr . _)" read
done
ls "$DATA" >/dev/null 2>&1 && [ -n "$(ls "$DATA" 2>/dev/null | grep -v contexts)" ] && leak datadir listed
touch "$DATA/planted" 2>/dev/null && leak datadir written
cat "$OTHER" >/dev/null 2>&1 && leak other_context read
[ -S "$DATA/redis/redis.sock" ] && leak redis_socket visible
[ -S "$DATA/api.sock" ] && leak api_socket visible
cat /proc/$AGENT/environ >/dev/null 2>&1 && leak agent_environ read
ls /proc | grep -q "^$AGENT\$" && [ "$AGENT" != 1 ] && leak agent_pid visible
kill -9 $AGENT 2>/dev/null && leak agent killed
touch /etc/hyphae-planted 2>/dev/null && leak etc written
[ "$(id -u)" = 0 ] && [ "$ROOTLESS" != 1 ] && leak uid root
echo "x" > "$HOME/mine" && ok own_dir
echo "x" > /tmp/mine && ok tmp
[ "$FROM_JOB_ENV" = yes ] && ok env
echo "answer=42" >> "$HYPHAE_RESULT"
`

// containLab is an agent (bob, on defaults: embedded store) with a secret
// in its context 2, and a friend (alice) who may execute in its context 1.
type containLab struct {
	bob, alice *flowAgent
	other      string // a file in one of bob's context 2 job directories
}

// newContainLab starts bob (under the prefix command prefix returns for
// its data dir, when prefix is not nil) and alice.
func newContainLab(t *testing.T, prefix func(t *testing.T, dir string) []string) containLab {
	t.Helper()
	var b *flowAgent
	if prefix == nil {
		b = startFlowAgent(t, "b", "runner:\n  isolation:\n    remote: contained\n")
	} else {
		dir := newDataDir(t)
		b = &flowAgent{name: "b", dir: dir, args: append(localArgs(), "--presence-interval", "300ms")}
		b.proc = startRun(t, dir, prefix(t, dir), b.args...)
		var id struct {
			PeerID string `json:"peer_id"`
		}
		decode(t, hy(t, "id", "--json", "--data-dir", dir), &id)
		b.peer = id.PeerID
	}
	a := startFlowAgent(t, "a", "", "--bootstrap", b.addr(t))
	a.waitPeerUp(t, b.peer, "sh")
	b.hy(t, "context", "create", "--id", "1")
	b.hy(t, "context", "grant", "1", "--actor", a.peer, "--role", "executor")
	b.hy(t, "context", "create", "--id", "2")
	out := b.hy(t, "job", "run", "--context", "2", "--wait", "--json",
		"--script", `echo "other tenant secret" > secret.txt; echo "dir=$PWD" >> "$HYPHAE_RESULT"`)
	var j struct {
		Status string            `json:"status"`
		Result map[string]string `json:"result"`
	}
	decode(t, out, &j)
	if j.Status != "finished" {
		t.Fatalf("bob's own job in context 2: %s", out)
	}
	return containLab{bob: b, alice: a, other: filepath.Join(j.Result["dir"], "secret.txt")}
}

// attack runs the escape script from alice on bob's context 1.
func (l containLab) attack(t *testing.T, typ, script string, extra ...string) (status, errText string, result map[string]string) {
	t.Helper()
	args := []string{"job", "run", "--to", l.bob.peer, "--context", "1", "--wait", "--json", "--data-dir", l.alice.dir,
		"--type", typ, "--script", script, "--env", "DATA=" + l.bob.dir, "--env", "OTHER=" + l.other,
		"--env", "AGENT=" + strconv.Itoa(l.bob.proc.cmd.Process.Pid), "--env", "FROM_JOB_ENV=yes"}
	out, _, _ := hyTry(append(args, extra...)...)
	var j struct {
		Status string            `json:"status"`
		Error  string            `json:"error"`
		Result map[string]string `json:"result"`
	}
	decode(t, out, &j)
	return j.Status, j.Error, j.Result
}

func checkContained(t *testing.T, l containLab, status, errText string, res map[string]string) {
	t.Helper()
	t.Logf("contained job: status %s, result %v", status, res)
	if status != "finished" || res["answer"] != "42" {
		t.Fatalf("the contained job did not run: status %s, error %q, result %v", status, errText, res)
	}
	for k, v := range res {
		if strings.HasPrefix(k, "leak_") {
			t.Errorf("escape not blocked: %s=%s", k, v)
		}
	}
	for _, k := range []string{"ok_own_dir", "ok_tmp", "ok_env"} {
		if res[k] != "1" {
			t.Errorf("the job could not do its own work: %s missing in %v", k, res)
		}
	}
	if _, err := os.Stat(filepath.Join(l.bob.dir, "planted")); err == nil {
		t.Error("the job wrote into bob's data dir")
	}
	if _, _, err := hyTry("info", "--data-dir", l.bob.dir); err != nil {
		t.Fatalf("bob's agent did not survive the job: %v", err)
	}
}

func TestRemoteJobIsContained(t *testing.T) {
	t.Parallel()
	need.Root(t, "the root mode of containment needs root; TestRootlessAgentContains covers the rest")
	l := newContainLab(t, nil)
	status, errText, res := l.attack(t, "sh", escapeScript)
	checkContained(t, l, status, errText, res)

	py := `import os, socket
r = open(os.environ["HYPHAE_RESULT"], "a")
d = os.environ["DATA"]
for name in ("redis/redis.sock", "api.sock"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(os.path.join(d, name)); r.write("leak_connect_%s=1\n" % name.replace("/", "_").replace(".", "_"))
    except OSError:
        pass
pids = [p for p in os.listdir("/proc") if p.isdigit()]
r.write("answer=42\nok_own_dir=1\nok_tmp=1\nok_env=%d\npids=%d\n" % (os.environ.get("FROM_JOB_ENV") == "yes", len(pids)))
`
	status, errText, res = l.attack(t, "python", py)
	checkContained(t, l, status, errText, res)
	if res["pids"] != "2" { // the helper (pid 1) and python
		t.Errorf("a contained python job sees %s processes, want 2 (its init and itself)", res["pids"])
	}
}

func TestRemoteJobNetworkNone(t *testing.T) {
	t.Parallel()
	need.Root(t, "needs root")
	l := newContainLab(t, nil)
	script := `ls /sys/class/net >/dev/null; echo "ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ,)" >> "$HYPHAE_RESULT"`
	status, errText, res := l.attack(t, "sh", script, "--network", "none")
	if status != "finished" || res["ifaces"] != "lo," {
		t.Fatalf("network none: status %s, error %q, interfaces %q; want lo only", status, errText, res["ifaces"])
	}
	_, _, res = l.attack(t, "sh", script)
	if !strings.Contains(res["ifaces"], "lo,") || res["ifaces"] == "lo," {
		t.Fatalf("default network: interfaces %q; want the host's", res["ifaces"])
	}
}
