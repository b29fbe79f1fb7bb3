package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// nobody is the unprivileged user the rootless tests run an agent as.
const nobody = "65534"

var (
	sharedBinOnce sync.Once
	sharedBin     string
)

// binForNobody is a copy of the hyphae binary that nobody may run (the
// test build's directory is root's alone).
func binForNobody(t *testing.T) string {
	t.Helper()
	sharedBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hyphae-bin")
		if err == nil {
			_ = os.Chmod(dir, 0o755)
			sharedBin = filepath.Join(dir, "hyphae")
			err = exec.Command("cp", bin, sharedBin).Run()
		}
		if err != nil {
			t.Fatalf("copy the binary for nobody: %v", err)
		}
	})
	return sharedBin
}

// asNobody is a startRun prefix that runs the agent as nobody (and, with
// noUserNS, inside a user namespace that may create no more, where the
// agent cannot contain anything).
func asNobody(t *testing.T, noUserNS bool) []string {
	t.Helper()
	pkg := map[string]string{"setpriv": "util-linux", "unshare": "util-linux"}
	for _, tool := range []string{"setpriv", "unshare"} {
		need.Tool(t, tool, pkg[tool])
	}
	run := `shift; exec "$HYPHAE_NOBODY_BIN" "$@"`
	p := []string{"env", "HYPHAE_NOBODY_BIN=" + binForNobody(t), "setpriv", "--reuid=" + nobody, "--regid=" + nobody, "--clear-groups"}
	if noUserNS {
		p = append(p, "unshare", "--user", "--map-root-user")
		run = `echo 0 > /proc/sys/user/max_user_namespaces && ` + run
	}
	return append(p, "sh", "-c", run, "sh")
}

// giveToNobody hands a data dir (made by hyphae init as root) to nobody.
func giveToNobody(t *testing.T, dir string) {
	t.Helper()
	parent := filepath.Dir(dir)
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", "-R", nobody+":"+nobody, dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
}

func TestRootlessAgentContains(t *testing.T) {
	t.Parallel()
	need.Root(t, "start an agent as nobody")
	l := newContainLab(t, func(t *testing.T, dir string) []string {
		giveToNobody(t, dir)
		return asNobody(t, false)
	})
	if info := l.bob.hy(t, "info"); !strings.Contains(info, "rootless") {
		t.Fatalf("an agent run as nobody should contain through user namespaces; info:\n%s", info)
	}
	status, errText, res := l.attack(t, "sh", "ROOTLESS=1\n"+escapeScript)
	checkContained(t, l, status, errText, res)
}

func TestAgentThatCannotContainRefusesRemoteJobs(t *testing.T) {
	t.Parallel()
	need.Root(t, "start an agent as nobody")
	l := newContainLab(t, func(t *testing.T, dir string) []string {
		giveToNobody(t, dir)
		return asNobody(t, true)
	})
	if info := l.bob.hy(t, "info"); !strings.Contains(info, "cannot contain") {
		t.Fatalf("info should say the agent cannot contain:\n%s", info)
	}
	status, errText, res := l.attack(t, "sh", `echo ran > "$DATA/../ran-uncontained"; echo "answer=42" >> "$HYPHAE_RESULT"`)
	if status != "error" || res["answer"] == "42" {
		t.Fatalf("a remote job on an agent that cannot contain: status %s, result %v; want a refusal", status, res)
	}
	for _, fix := range []string{"user namespaces", "systemd service", "isolation: host"} {
		if !strings.Contains(errText, fix) {
			t.Errorf("the refusal %q does not name the fix %q", errText, fix)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(l.bob.dir), "ran-uncontained")); err == nil {
		t.Fatal("the job ran uncontained")
	}
	// The agent's own jobs still run (on the host, as configured).
	out := l.bob.hy(t, "job", "run", "--context", "1", "--wait", "--script", "echo own")
	if !strings.Contains(out, "own") {
		t.Fatalf("bob's own job: %s", out)
	}
}
