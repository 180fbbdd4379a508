package holder

import (
	"bytes"
	"io/fs"
	"net"
	"os"
	"strconv"
	"syscall"
)

// peerCred is the uid and pid of the process at the other end of a Unix
// socket, as the kernel recorded them at connect: the peer cannot lie.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var (
		cred *syscall.Ucred
		cerr error
	)
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if cerr != nil {
		return -1, 0, cerr
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// fileOwner is the uid owning the file, -1 when unknown.
func fileOwner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// ProcessStopped reports whether process pid is stopped (Ctrl-Z, kill
// -STOP, a debugger): state T or t in /proc/PID/stat.
func ProcessStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the state is the field after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st == 'T' || st == 't'
}
