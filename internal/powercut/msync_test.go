package powercut

import "golang.org/x/sys/unix"

func syscallMsync(b []byte) error { return unix.Msync(b, unix.MS_SYNC) }
