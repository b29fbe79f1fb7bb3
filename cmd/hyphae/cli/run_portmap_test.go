package cli

import (
	"testing"
)

// --no-nat-portmap turns overlay.nat_port_map off; without it the default
// (on) stands.
func TestRunNoNATPortMapFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--no-nat-portmap"}, false},
		{[]string{"--no-nat-portmap=false"}, true},
	} {
		g := &globals{dataDir: t.TempDir()}
		f := &runFlags{}
		cmd := newRunWith(g, f)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadRunConfig(g, f, cmd.Flags())
		if err != nil {
			t.Fatal(err)
		}
		if got := *cfg.Overlay.NATPortMap; got != c.want {
			t.Errorf("%v: nat_port_map %v, want %v", c.args, got, c.want)
		}
	}
}
