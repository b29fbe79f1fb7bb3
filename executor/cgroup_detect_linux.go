package executor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// cgroupHost is what the agent process finds of cgroups on its machine:
// its own cgroup2 directory (where a runner's subtree goes) and, on hybrid
// machines, its own directories in the cgroup v1 memory and cpu
// hierarchies.
type cgroupHost struct {
	v2Own string            // the agent's cgroup2 directory; "" = none usable
	why   string            // why there is no usable cgroup2
	v1    map[string]string // "memory", "cpu" → the agent's cgroup v1 directory
}

var (
	hostOnce sync.Once
	hostSeen cgroupHost
)

// theHost detects the agent's cgroups once per process: a runner may move
// the agent into a leaf cgroup (see moveToLeaf), after which
// /proc/self/cgroup no longer names the cgroup the runners build under.
func theHost() cgroupHost {
	hostOnce.Do(func() {
		mi, err1 := os.ReadFile("/proc/self/mountinfo")
		pc, err2 := os.ReadFile("/proc/self/cgroup")
		if err1 != nil || err2 != nil {
			hostSeen = cgroupHost{why: "cannot read /proc/self/mountinfo or /proc/self/cgroup"}
			return
		}
		hostSeen = hostFrom(string(mi), string(pc))
	})
	return hostSeen
}

// hostFrom reads the cgroup mounts of /proc/self/mountinfo and the
// agent's memberships in /proc/self/cgroup.
func hostFrom(mountinfo, procCgroup string) cgroupHost {
	own := parseProcCgroup(procCgroup)
	h := cgroupHost{v1: map[string]string{}}
	for _, m := range parseMountinfo(mountinfo) {
		switch {
		case m.v2 && h.v2Own == "":
			if p, ok := own[""]; ok {
				if d, ok := m.dirOf(p); ok {
					h.v2Own = d
				}
			}
		case !m.v2:
			for _, c := range m.controllers {
				if p, ok := own[c]; ok && (c == "memory" || c == "cpu" || c == "pids") && h.v1[c] == "" {
					if d, ok := m.dirOf(p); ok {
						h.v1[c] = d
					}
				}
			}
		}
	}
	if h.v2Own == "" {
		h.why = "no cgroup2 hierarchy is mounted"
		if _, member := own[""]; member && strings.Contains(mountinfo, " - cgroup2 ") {
			h.why = "the agent's cgroup2 is not visible under any cgroup2 mount"
		}
	}
	return h
}

// cgroupMount is one cgroup filesystem in mountinfo.
type cgroupMount struct {
	root, point string   // the mounted subtree and where it is mounted
	v2          bool     // cgroup2, else cgroup v1
	controllers []string // v1: the controllers bound to it
}

// dirOf is where cgroup path p (as /proc/self/cgroup gives it) is under
// the mount; false when p is outside the mounted subtree.
func (m cgroupMount) dirOf(p string) (string, bool) {
	if m.root != "/" {
		if p != m.root && !strings.HasPrefix(p, m.root+"/") {
			return "", false
		}
		p = strings.TrimPrefix(p, m.root)
	}
	return filepath.Join(m.point, p), true
}

// parseMountinfo lists the cgroup and cgroup2 mounts, in order. A line is
// "id parent maj:min root point options [optional…] - fstype source super".
func parseMountinfo(data string) []cgroupMount {
	var out []cgroupMount
	for _, line := range strings.Split(data, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || (g[0] != "cgroup" && g[0] != "cgroup2") {
			continue
		}
		m := cgroupMount{root: unescapeMount(f[3]), point: unescapeMount(f[4]), v2: g[0] == "cgroup2"}
		if !m.v2 {
			m.controllers = strings.Split(g[2], ",")
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseProcCgroup maps "" to the cgroup2 path and each v1 controller to
// its path, from lines "0::/path" and "4:memory:/path".
func parseProcCgroup(data string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(data, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c != "" {
				out[c] = parts[2]
			}
		}
	}
	return out
}
