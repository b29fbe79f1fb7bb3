package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func benchRun(b *testing.B, contain, noNet bool) {
	l := newLab(b)
	s, err := New(Config{DataDir: l.data})
	if err != nil || s.Mode() == "" {
		b.Skipf("cannot contain: %v %s", err, s.Why())
	}
	if uid, gid, ok := s.IDs(1); ok {
		if err := os.Chown(l.job, uid, gid); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if contain {
			if err := s.Wrap(cmd, Job{Dir: l.job, Context: 1, NoNet: noNet}); err != nil {
				b.Fatal(err)
			}
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
}

// BenchmarkExecContained: /bin/true through the helper.
func BenchmarkExecContained(b *testing.B) { benchRun(b, true, false) }

// BenchmarkExecPlain: /bin/true as is, the baseline.
func BenchmarkExecPlain(b *testing.B) { benchRun(b, false, false) }
