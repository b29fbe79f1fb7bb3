package e2e

import (
	"strings"
	"testing"
)

// inspectAgent starts an agent with context 1 and one finished job in it,
// whose key it returns.
func inspectAgent(t *testing.T) (dir, key string) {
	t.Helper()
	dir = newDataDir(t)
	startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	var j jobOut
	decode(t, hy(t, "job", "run", "-c", "1", "--script", "echo inspected", "--wait", "--json", "--data-dir", dir), &j)
	if j.Status != "finished" {
		t.Fatalf("job run -c 1 = %+v", j)
	}
	return dir, j.Key
}

// The context is the same flag everywhere (--context/-c, default
// $HYPHAE_CONTEXT), and the older positional forms still work.
func TestCLIContextFlagEverywhere(t *testing.T) {
	dir, key := inspectAgent(t)
	forms := map[string][][]string{
		"job status": {{"job", "status", "-c", "1", key}, {"job", "status", "1", key}, {"job", "status", "--context", "1", key}},
		"job logs":   {{"job", "logs", "-c", "1", key}, {"job", "logs", "1", key}},
		"job list":   {{"job", "list", "-c", "1"}, {"job", "list", "1"}},
		"runner":     {{"runner", "list", "-c", "1"}, {"runner", "list", "1"}},
		"context":    {{"context", "show", "-c", "1"}, {"context", "show", "1"}},
		"flow list":  {{"flow", "list", "-c", "1"}, {"flow", "list", "1"}, {"flow", "list", "--context", "1"}},
	}
	for name, argvs := range forms {
		for _, argv := range argvs {
			if _, stderr, code := hyEnv(nil, nil, append(argv, "--data-dir", dir)...); code != 0 {
				t.Errorf("%s: hyphae %s: exit %d: %s", name, strings.Join(argv, " "), code, stderr)
			}
		}
	}
	// HYPHAE_CONTEXT stands in for the flag.
	out, stderr, code := hyEnv([]string{"HYPHAE_CONTEXT=1"}, nil, "job", "status", key, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "finished") {
		t.Fatalf("HYPHAE_CONTEXT=1 hyphae job status %s: exit %d\n%s%s", key, code, out, stderr)
	}
	// No context at all is bad usage that says how to give one.
	_, stderr, code = hyEnv(nil, nil, "job", "status", key, "--data-dir", dir)
	if code != 2 || !strings.Contains(stderr, "--context N") {
		t.Fatalf("job status without a context: exit %d, %q", code, stderr)
	}
}
