package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pasteable is the command line `hyphae ARGS...` as the user can paste it
// to reach the same agent: with --data-dir, --addr and --token-file when
// this command had them from its flags rather than from the defaults or
// the environment the pasted line will see too.
func (g *globals) pasteable(args ...string) string {
	line := append([]string{"hyphae"}, args...)
	switch {
	case g.remote.addr != "":
		if g.remote.addr != os.Getenv(envAddr) {
			line = append(line, "--addr", g.remote.addr)
		}
		if g.remote.tokenFile != "" && g.remote.tokenFile != os.Getenv(envTokenFile) {
			line = append(line, "--token-file", absPath(g.remote.tokenFile))
		}
	case g.dataDir != g.agent.DefaultDataDir():
		line = append(line, "--data-dir", absPath(g.dataDir))
	}
	for i, a := range line {
		line[i] = shellWord(a)
	}
	return strings.Join(line, " ")
}

// followHint is the command that follows job key's log lines.
func followHint(g *globals, ctxID uint64, key string) string {
	return g.pasteable("job", "logs", "-f", "-c", strconv.FormatUint(ctxID, 10), key)
}

// absPath is p made absolute, so that the line works from any directory.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// shellWord is s quoted for a POSIX shell when it holds anything but
// the characters a word may hold bare.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
