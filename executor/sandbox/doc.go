// Package sandbox runs a job's process contained: as a user that is not
// the agent's, in its own mount, pid and ipc namespaces (and network
// namespace for network none), with the agent's data dir hidden, a private
// /tmp and the host's files read-only (docs/design.md, "Contained jobs", contained jobs).
//
// It needs no program besides the agent's own binary. Wrap rewrites a
// job's command to re-execute that binary with the job's argv behind the
// marker argument "hyphae-sandbox-init" and the plan (a JSON Spec) in the
// environment variable HYPHAE_SANDBOX_SPEC. The clone that starts it
// creates the namespaces; this package's init function, which runs before
// the rest of the program in any binary that links it (tests included),
// recognises the marker and becomes the job's init, as runc's init does:
//
//  1. it makes every mount private, clones the job directory's mount,
//     makes the whole tree read-only and nosuid, mounts tmpfs on /tmp,
//     /var/tmp and /dev/shm and on each masked directory (the data dir, or
//     the highest ancestor of it the job's user could not traverse, the
//     agent user's home when rootless), covers masked files with
//     /dev/null, puts the job directory (and any exposed paths, read-only)
//     back at their own paths, and mounts a fresh /proc for its pid
//     namespace;
//  2. it drops privilege: as root, to the job's uid and gid with no
//     supplementary groups; rootless (a user namespace mapping the agent's
//     uid to 0), the job's process is started in a nested user namespace
//     that owns none of the others, so it holds no capability over the
//     mounts that hide the data dir; no_new_privs is set either way;
//  3. it starts the job's program as its only child, forwards the signals
//     it is sent, reaps every orphan, and exits with the child's status
//     (128+signal for a signal). When it exits the kernel kills whatever
//     is left in the pid namespace.
//
// Probe finds out once which of the two ways works on this machine by
// running the helper with an empty job, and says why neither does.
package sandbox
