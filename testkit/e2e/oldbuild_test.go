package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
)

// oldCommit is the previous build the upgrade and version-skew tests run
// against: the last commit before schema numbers, api.socket_group and
// HYPHAE_ADDR, whose data layout is schema 1's and whose wire is the one
// agents in the field speak. HYPHAE_TEST_OLD_COMMIT names another.
const oldCommit = "994c1f9de1eb0b7df2ab6e529585491a95b93943"

// oldVersion is the version the old build reports (set by -ldflags), so
// that presence can be seen to carry it.
const oldVersion = "0.0.0-previous"

var oldBuild struct {
	once sync.Once
	path string
	skip string // why the tests cannot have it (no git history)
	err  error
}

// oldBinary returns the hyphae binary of the previous build, built once
// per test binary run and kept in os.TempDir keyed by commit, so that
// later runs reuse it; it skips the test when git history is missing.
func oldBinary(t testing.TB) string {
	t.Helper()
	oldBuild.once.Do(func() { oldBuild.path, oldBuild.skip, oldBuild.err = buildOld() })
	if oldBuild.skip != "" {
		t.Skip(oldBuild.skip)
	}
	if oldBuild.err != nil {
		t.Fatal(oldBuild.err)
	}
	return oldBuild.path
}

func buildOld() (path, skip string, err error) {
	commit := oldCommit
	if c := os.Getenv("HYPHAE_TEST_OLD_COMMIT"); c != "" {
		commit = c
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", "no git history here (not a git checkout): the tests against the previous build need it", nil
	}
	root := strings.TrimSpace(string(top))
	if exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run() != nil {
		return "", fmt.Sprintf("commit %s (the previous build) is not in this clone: `git fetch --unshallow` to run these tests", commit), nil
	}
	dir := filepath.Join(os.TempDir(), "hyphae-previous-"+commit[:12])
	path = filepath.Join(dir, "hyphae")
	if fi, err := os.Stat(path); err == nil && fi.Mode()&0o111 != 0 {
		return path, "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	src, err := os.MkdirTemp(dir, "src")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(src)
	if err := archive(root, commit, src); err != nil {
		return "", "", err
	}
	// Its source with this tree's module versions: libp2p and pubsub are
	// the same, so the wire differs only by our code, and its dependencies
	// come from the build cache the e2e binary filled rather than a second
	// compile of them all.
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			return "", "", err
		}
	}
	tmp := path + ".tmp"
	build := gobuild.Command(src, "-mod=mod", "-o", tmp,
		"-ldflags", "-X github.com/hyphae-run/hyphae/node.Version="+oldVersion, "./cmd/hyphae")
	build.Env = append(build.Env, "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("build the previous hyphae (%s): %v\n%s", commit, err, out)
	}
	return path, "", os.Rename(tmp, path)
}

// archive writes the tree of commit into dir (git archive | tar -x).
func archive(root, commit, dir string) error {
	var tarball bytes.Buffer
	arc := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	arc.Stdout = &tarball
	if err := arc.Run(); err != nil {
		return fmt.Errorf("git archive %s: %w", commit, err)
	}
	x := exec.Command("tar", "-x", "-C", dir)
	x.Stdin = &tarball
	if out, err := x.CombinedOutput(); err != nil {
		return fmt.Errorf("tar -x: %v\n%s", err, out)
	}
	return nil
}

// binAgent is an agent run by a given hyphae binary (old or current) on
// its own data dir, on loopback.
type binAgent struct {
	name, bin, dir, peer string
	proc                 *proc
}

// newBinAgent inits a data dir with binary b and starts `b run` on it.
func newBinAgent(t *testing.T, name, b string, args ...string) *binAgent {
	t.Helper()
	d, err := os.MkdirTemp("", "hy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	a := &binAgent{name: name, bin: b, dir: filepath.Join(d, "d")}
	a.hy(t, "init")
	a.start(t, args...)
	var id struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, a.hy(t, "id", "--json"), &id)
	a.peer = id.PeerID
	return a
}

// start runs the agent with its own binary and waits for its API. The
// previous build knows --no-mdns but not --no-nat-portmap: its data dir's
// config turns port mapping off (oldHostArgs).
func (a *binAgent) start(t *testing.T, args ...string) {
	t.Helper()
	local := localArgs()
	if a.bin != bin {
		local = oldHostArgs(t, a.dir)
	}
	argv := append([]string{"run", "--data-dir", a.dir, "--presence-interval", "300ms"}, local...)
	cmd := exec.Command(a.bin, append(argv, args...)...)
	p := &proc{cmd: cmd, dir: a.dir, log: &syncBuf{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(p.kill)
	a.proc = p
	eventually(t, 30*time.Second, a.name+"'s API", func() bool {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("%s: hyphae run exited: %v\n%s", a.name, err, p.log)
		default:
		}
		_, _, err := a.try("peers")
		return err == nil
	})
	if a.bin == bin { // the previous build reports neither (no info --json): its flags and config are the check
		guardAgent(t, a.bin, a.dir)
	}
}

// oldHostArgs are localArgs for the previous build, which has no
// --no-nat-portmap: it sets nat_port_map: false in dir's hyphae.yaml
// (written by init; `hyphae run` reads it) instead.
func oldHostArgs(t *testing.T, dir string) []string {
	t.Helper()
	path := filepath.Join(dir, "hyphae.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	on := regexp.MustCompile(`(?m)^(\s*nat_port_map:\s*)true\b`)
	off := regexp.MustCompile(`(?m)^\s*nat_port_map:\s*false\b`)
	b = on.ReplaceAll(b, []byte("${1}false"))
	if !off.Match(b) {
		t.Fatalf("%s sets no overlay.nat_port_map to turn off:\n%s", path, b)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range localArgs() {
		if a != "--no-nat-portmap" {
			out = append(out, a)
		}
	}
	return out
}

// stop ends the agent as systemd does (SIGTERM: drain, then exit 0), so
// its store is written out.
func (a *binAgent) stop(t *testing.T) {
	t.Helper()
	if err := a.proc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := a.proc.wait(t, 90*time.Second); err != nil {
		t.Fatalf("%s stopped with %v\n%s", a.name, err, a.proc.log)
	}
}

// hy runs a command of the agent's own binary on its data dir.
func (a *binAgent) hy(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, err := a.try(args...)
	if err != nil {
		t.Fatalf("%s: hyphae %s: %v\nstdout: %s\nstderr: %s", a.name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

func (a *binAgent) try(args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, append(args, "--data-dir", a.dir)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// addr is the agent's loopback TCP overlay address with /p2p/.
func (a *binAgent) addr(t testing.TB) string {
	t.Helper()
	var id struct {
		ListenAddrs []string `json:"listen_addrs"`
	}
	decode(t, a.hy(t, "id", "--json"), &id)
	for _, ad := range id.ListenAddrs {
		if strings.Contains(ad, "/tcp/") && strings.Contains(ad, "/p2p/") {
			return ad
		}
	}
	t.Fatalf("%s has no TCP listen address: %v", a.name, id.ListenAddrs)
	return ""
}
