package e2e

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// hyEnv runs the CLI with env added to a environment without HYPHAE_*.
func hyEnv(env []string, cred *syscall.Credential, args ...string) (string, string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HYPHAE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), exitCode(err)
}

// HYPHAE_ADDR with HYPHAE_TOKEN_FILE (or --addr and --token-file) drive an
// agent over its TCP API without its socket; without the token, or with a
// wrong one, the error says where the token is; with nothing listening,
// exit 3 says so.
func TestCLIOverTCPWithTokenFile(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	startRun(t, dir, nil, "--api", "127.0.0.1:0", "--listen", "/ip4/127.0.0.1/tcp/0", "--no-mdns")
	var info struct {
		API string `json:"api"`
	}
	decode(t, hy(t, "info", "--json", "--data-dir", dir), &info)
	addr := "http://" + info.API
	token := filepath.Join(dir, "api.token")
	nowhere := "HYPHAE_DATA_DIR=" + filepath.Join(t.TempDir(), "none") // no socket to fall back on

	env := []string{nowhere, "HYPHAE_ADDR=" + addr, "HYPHAE_TOKEN_FILE=" + token}
	if out, errOut, code := hyEnv(env, nil, "context", "create", "--id", "1"); code != 0 {
		t.Fatalf("context create over TCP: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := hyEnv([]string{nowhere}, nil, "job", "run", "--context", "1", "--wait",
		"--script", "echo over tcp", "--addr", addr, "--token-file", token)
	if code != 0 || !strings.Contains(out, "over tcp") {
		t.Fatalf("job run with --addr and --token-file: exit %d\n%s%s", code, out, errOut)
	}

	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"no token", []string{"HYPHAE_ADDR=" + addr}, "no token was sent"},
		{"a wrong token", []string{"HYPHAE_ADDR=" + addr, "HYPHAE_TOKEN=wrong"}, "the token was refused"},
	} {
		_, errOut, code := hyEnv(append(c.env, nowhere), nil, "context", "list")
		for _, w := range []string{"401 unauthorized", c.want, "HYPHAE_TOKEN_FILE", "api.token"} {
			if code != 1 || !strings.Contains(errOut, w) {
				t.Fatalf("%s: exit %d, stderr %q; want 1 and %q", c.name, code, errOut, w)
			}
		}
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	_, errOut, code = hyEnv([]string{nowhere, "HYPHAE_ADDR=" + closed, "HYPHAE_TOKEN_FILE=" + token}, nil, "context", "list")
	if code != 3 || !strings.Contains(errOut, "no agent answers at "+closed) {
		t.Fatalf("nothing at %s: exit %d, stderr %q; want 3 and that no agent answers", closed, code, errOut)
	}
}

// With api.socket_group, an agent run by root shares its socket with that
// group: a user in the group uses the CLI, one outside is told to join it
// or use HYPHAE_ADDR; an agent without it shares nothing and says how to.
// The users are an unprivileged uid in subprocesses of the built CLI.
func TestSocketGroupLetsMembersIn(t *testing.T) {
	t.Parallel()
	need.Root(t, "the agent gives its socket to a group, and the CLI runs as another uid")
	grp, err := user.LookupGroup("users")
	if err != nil {
		t.Skip("no group named users to share the socket with")
	}
	gid, _ := strconv.Atoi(grp.Gid)
	const nobody = 65534
	member := &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{uint32(gid)}}
	outsider := &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
	reachable(t, filepath.Dir(bin)) // the built CLI, for the other uid

	shared := newDataDir(t)
	reachable(t, filepath.Dir(shared))
	cfg := filepath.Join(filepath.Dir(shared), "hyphae.yaml")
	if err := os.WriteFile(cfg, []byte("api: {socket_group: users}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startRun(t, shared, nil, append(localArgs(), "--config", cfg)...)
	sock := filepath.Join(shared, "hyphae.sock")
	wantMode(t, sock, 0o660, gid)
	wantMode(t, shared, 0o750, gid)
	wantMode(t, filepath.Join(shared, "actor.key"), 0o600, 0)

	if out, errOut, code := hyEnv(nil, member, "context", "list", "--data-dir", shared); code != 0 {
		t.Fatalf("a member of group users: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code := hyEnv(nil, outsider, "context", "list", "--data-dir", shared)
	for _, w := range []string{"permission denied on " + sock, "add yourself to group users (sudo usermod -aG users $USER",
		"HYPHAE_ADDR and HYPHAE_TOKEN_FILE"} {
		if code != 1 || !strings.Contains(errOut, w) {
			t.Fatalf("outside the group: exit %d, stderr %q; want 1 and %q", code, errOut, w)
		}
	}

	private := newDataDir(t)
	reachable(t, filepath.Dir(private))
	startRun(t, private, nil, localArgs()...)
	wantMode(t, filepath.Join(private, "hyphae.sock"), 0o600, 0)
	_, errOut, code = hyEnv(nil, member, "context", "list", "--data-dir", private)
	if code != 1 || !strings.Contains(errOut, "the agent does not share its socket with a group: set `api.socket_group: hyphae`") {
		t.Fatalf("an agent without socket_group: exit %d, stderr %q; want 1 and how to share it", code, errOut)
	}

	// An agent run by a user outside the group cannot give it the socket:
	// the config is refused before anything starts.
	_, errOut, code = hyEnv(nil, outsider, testnet.HostRunArgs("run", "--data-dir", filepath.Join(t.TempDir(), "x"), "--config", cfgCopy(t, cfg))...)
	if code != 2 || !strings.Contains(errOut, "who is not in group users") {
		t.Fatalf("run as a user outside the group: exit %d, stderr %q; want 2 and why", code, errOut)
	}
}

// reachable lets any user through dir (0755), as a real install's
// directories are.
func reachable(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// cfgCopy puts the config where another uid can read it.
func cfgCopy(t *testing.T, cfg string) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hycfg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	reachable(t, d)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, "hyphae.yaml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantMode(t *testing.T, path string, mode os.FileMode, gid int) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if got := os.FileMode(st.Mode) & os.ModePerm; got != mode || int(st.Gid) != gid {
		t.Fatalf("%s: mode %o group %d, want %o group %d", path, got, st.Gid, mode, gid)
	}
}
