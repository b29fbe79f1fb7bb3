package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// Flags given to `hyphae run` override the config file; the rest comes from
// the file, then the defaults.
func TestRunFlagsOverrideFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("roles: [runner]\napi: {listen: 127.0.0.1:7000}\nredis: {url: redis://127.0.0.1:1}\n"), 0o600)
	g := &globals{dataDir: dir}
	f := &runFlags{}
	cmd := newRunWith(g, f)
	if err := cmd.ParseFlags([]string{"--config", file, "--api", "127.0.0.1:7001", "--no-mdns", "--bootstrap",
		"/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWEgYLD9nXKiZhcWrnZJ8quTEwMjTi6WcRsVhg3g2ZgEMc"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadRunConfig(g, f, cmd.Flags())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.API.Listen != "127.0.0.1:7001" || *cfg.Overlay.MDNS || len(cfg.Overlay.Bootstrap) != 1 {
		t.Fatalf("flags not applied: %+v", cfg)
	}
	if len(cfg.Roles) != 1 || cfg.Roles[0] != "runner" || cfg.Redis.URL != "redis://127.0.0.1:1" {
		t.Fatalf("file not applied: %+v", cfg)
	}
	if cfg.Runner.DrainGrace == 0 || cfg.DataDir != dir {
		t.Fatalf("defaults not applied: %+v", cfg)
	}
}

func TestRunRejectsBadConfigBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("rolez: [runner]\n"), 0o600)
	code := Main(t.Context(), []string{"run", "--data-dir", dir, "--config", file})
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
}
