package scheduler_test

import "testing"

// A flow job's memory_mb and cpu reach its job hash, where the runner
// reads them.
func TestLimitsReachTheJobHash(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	fl := e.create(t, s, "jobs:\n  big: {type: sh, script: x, memory_mb: 256, cpu: 1.5}\n  small: {type: sh, script: x}\n")
	st, err := s.Status(e.ctx, fl.ContextID, fl.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]string{"big": {"256", "1.5"}, "small": {"", ""}} {
		h, err := e.srv.Client(t, int(ctxID)).HGetAll(e.ctx, job(t, st, name).Key).Result()
		if err != nil || h["memory_mb"] != want[0] || h["cpu"] != want[1] {
			t.Fatalf("job %s: memory_mb %q cpu %q (%v), want %q %q", name, h["memory_mb"], h["cpu"], err, want[0], want[1])
		}
	}
}
