package bench

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropFromPageCache writes path's dirty pages back and drops its pages from the page cache, so that a
// process started from it reads its binary from disk, as on a node that has just pulled its image.
//
// Why: how a binary's pages entered the page cache changes the resident pages of a process running it.
// A binary fresh from `go build` (the linker writes through a shared mapping) sits in large folios,
// which the kernel maps whole: on this machine the quickstart process had 57.0 MB of its binary's pages
// resident that way against 49.3 MB when the binary was read back from disk (docs/benchmarks.md,
// "Binary size and resident pages"). The side-by-side harness builds zonekeeper just before it runs
// it, and external-dns's binary was built earlier, so without this the RSS columns compared binaries
// in different page cache states.
func dropFromPageCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s back before dropping it from the page cache: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("dropping %s from the page cache: %w", path, err)
	}
	return nil
}

// residentPages is how many of path's pages are in the page cache (mincore over a mapping of it).
func residentPages(path string) (resident, total int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, 0, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys has no mincore wrapper.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 0, 0, errno
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec), nil
}
