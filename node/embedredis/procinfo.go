package embedredis

import (
	"os"
	"strconv"
	"strings"
)

// isOurRedis reports whether pid is a live (not zombie) redis-server whose
// command line names sock, so that a recycled pid in a stale pid file never
// gets another process signalled. It reads /proc and so answers false where
// there is none; the socket probe still finds a leftover there.
func isOurRedis(pid int, sock string) bool {
	if pid <= 0 {
		return false
	}
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return false
	}
	comm, state, ok := parseStat(string(stat))
	if !ok || comm != "redis-server" || state == "Z" || state == "X" {
		return false
	}
	cmdline, err := os.ReadFile(dir + "/cmdline")
	return err == nil && strings.Contains(string(cmdline), sock)
}

// parseStat extracts the command name and state from a /proc/<pid>/stat line:
// "<pid> (<comm>) <state> …"; comm may itself contain spaces and parentheses.
func parseStat(stat string) (comm, state string, ok bool) {
	open := strings.IndexByte(stat, '(')
	closing := strings.LastIndexByte(stat, ')')
	if open < 0 || closing < open || closing+2 >= len(stat) {
		return "", "", false
	}
	return stat[open+1 : closing], stat[closing+2 : closing+3], true
}
