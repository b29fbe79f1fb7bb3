//go:build linux

package embedredis

import "syscall"

// childProcAttr puts the child in its own process group and has the kernel
// SIGKILL it when the agent dies, even by kill -9.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
