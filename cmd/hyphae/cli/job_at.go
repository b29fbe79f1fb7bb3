package cli

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// when sets p's run_at from --at or --in (now: the time --in counts from).
func (f *jobRunFlags) when(p *wire.JobRunParams, now time.Time) error {
	switch {
	case f.at != "" && f.in != 0:
		return usage("give --at or --in, not both")
	case f.in < 0:
		return usage("--in %v: want a duration from now, such as 10m", f.in)
	case f.in > 0:
		p.RunAt = now.Add(f.in).Unix()
		if now.Add(f.in).Nanosecond() != 0 { // never start before the time asked for
			p.RunAt++
		}
	case f.at != "":
		t, err := parseAt(f.at)
		if err != nil {
			return err
		}
		p.RunAt = t.Unix()
	}
	return nil
}

// parseAt reads --at: RFC 3339 (with or without seconds' fraction) or unix
// seconds.
func parseAt(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usage("--at %q: want RFC 3339 (2026-12-24T18:00:00Z, or with an offset such as +01:00) or unix seconds", s)
	}
	return t, nil
}

// builtinExt maps a script file's extension to the built-in type that runs it.
var builtinExt = map[string]string{".py": "python", ".sh": "sh", ".bash": "bash"}

// inferType is the script type of file when --type is not given: the
// built-in type of its extension, else the extension itself when the agent
// serves a type of that name (executors in its config), else sh.
func inferType(file string, served []string) string {
	ext := strings.ToLower(filepath.Ext(file))
	if t, ok := builtinExt[ext]; ok {
		return t
	}
	if t := strings.TrimPrefix(ext, "."); t != "" && slices.Contains(served, t) {
		return t
	}
	return "sh"
}

// servedTypes asks the agent which script types it serves (nil when it
// cannot say).
func servedTypes(ctx context.Context, g *globals) []string {
	var info wire.InfoView
	if err := g.call(ctx, "node.info", nil, &info); err != nil {
		return nil
	}
	return info.ScriptTypes
}
