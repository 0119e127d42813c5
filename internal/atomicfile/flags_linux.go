package atomicfile

import (
	"os"
	"syscall"
	"unsafe"
)

// The inode flags that chattr +a and +i set (FS_APPEND_FL,
// FS_IMMUTABLE_FL), read by FS_IOC_GETFLAGS.
const (
	fsIocGetflags = 0x80086601
	fsImmutableFL = 0x10
	fsAppendFL    = 0x20
)

// appendOnly reports whether the file at path may only be appended to
// (chattr +a), which no rename may replace: the run would fail only once
// its work was done. False where the flags cannot be read.
func appendOnly(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		// A write-only file (mode 0200): opened for appending, which
		// writes nothing and which an append-only file allows.
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return false
		}
	}
	defer f.Close()
	var flags uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocGetflags, uintptr(unsafe.Pointer(&flags))); errno != 0 {
		return false
	}
	return flags&(fsAppendFL|fsImmutableFL) != 0
}
