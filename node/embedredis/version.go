package embedredis

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

// minVersion is the oldest redis-server the store works with: LMOVE and
// BLMOVE arrived in Redis 6.2.
var minVersion = [2]int{6, 2}

var versionRE = regexp.MustCompile(`\bv=(\d+)\.(\d+)\.(\d+)`)

// checkVersion runs bin --version and refuses a redis-server older than
// minVersion, so that an old install fails at start, not on the first job.
func checkVersion(ctx context.Context, bin string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	major, minor, ok := parseVersion(string(out))
	if !ok {
		return nil // unknown format: let the start itself tell
	}
	if major < minVersion[0] || (major == minVersion[0] && minor < minVersion[1]) {
		return fmt.Errorf("%s is version %d.%d; Hyphae needs %d.%d or newer: "+
			"install a newer redis-server or set redis.url", bin, major, minor,
			minVersion[0], minVersion[1])
	}
	return nil
}

// parseVersion reads "Redis server v=7.0.15 sha=…" as 7, 0.
func parseVersion(s string) (major, minor int, ok bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}
