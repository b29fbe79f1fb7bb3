package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// sshd is an sshd of this benchmark alone on a loopback port: a host key
// and a client key made for it, the client key its only authorised one.
type sshd struct {
	port int
	key  string
}

// startSSHD starts one, or returns nil (the scp row skipped, logged)
// when sshd, ssh-keygen or scp is not installed.
func startSSHD(b *testing.B) *sshd {
	b.Helper()
	bin := "/usr/sbin/sshd"
	for _, p := range []string{bin, "/usr/bin/ssh-keygen", "/usr/bin/scp"} {
		if _, err := os.Stat(p); err != nil {
			b.Logf("no scp row: %v", err)
			return nil
		}
	}
	dir := b.TempDir()
	hostKey, key := filepath.Join(dir, "host"), filepath.Join(dir, "client")
	for _, k := range []string{hostKey, key} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			b.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		b.Fatal(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(auth, pub, 0o600); err != nil {
		b.Fatal(err)
	}
	port := loopbackPort(b)
	cfg := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\nPasswordAuthentication no\n"+
		"StrictModes no\nUsePAM no\nPermitRootLogin yes\nPidFile none\nSubsystem sftp internal-sftp\n", port, hostKey, auth)
	conf := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation dir
	cmd := exec.Command(bin, "-D", "-e", "-f", conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatalf("sshd: %v", err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &sshd{port: port, key: key}
	eventually(b, 10*time.Second, "sshd answering", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return s
}

func loopbackPort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// copy is `scp` of src from this sshd into dst, timed (0 without an
// sshd); dst is removed after.
func (s *sshd) copy(b *testing.B, src, dst string) time.Duration {
	if s == nil {
		return 0
	}
	b.Helper()
	user := os.Getenv("USER")
	if user == "" {
		user = "root"
	}
	t0 := time.Now()
	out, err := exec.Command("scp", "-q", "-i", s.key, "-P", fmt.Sprint(s.port),
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
		fmt.Sprintf("%s@127.0.0.1:%s", user, src), dst).CombinedOutput()
	d := time.Since(t0)
	_ = os.Remove(dst)
	if err != nil {
		b.Fatalf("scp: %v: %s", err, out)
	}
	return d
}
