package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostRemote adds runner.isolation.remote: host to a config file's text.
// Most tests here watch a remote job through a file in the test's temp
// dir, which a contained job cannot reach (its /tmp is its own);
// containment itself is tested on the defaults (contain_test.go).
func hostRemote(config string) string {
	if strings.Contains(config, "isolation:") {
		return config
	}
	const iso = "  isolation:\n    remote: host\n"
	if i := strings.Index(config, "runner:\n"); i >= 0 {
		at := i + len("runner:\n")
		return config[:at] + iso + config[at:]
	}
	return config + "runner:\n" + iso
}

// hostRemoteArgs is --config with hostRemote("") in a file of its own.
func hostRemoteArgs(t testing.TB) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "host-remote.yaml")
	if err := os.WriteFile(path, []byte(hostRemote("")), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", path}
}
