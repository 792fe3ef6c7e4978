package ingest

import "syscall"

// mapMemory reserves n bytes of zeroed memory outside Go's heap; the
// system backs a page only when it is first written (MAP_NORESERVE: the
// reservation is not counted against the machine's memory either).
// unmap gives the whole mapping back.
func mapMemory(n int) (buf []byte, unmap func([]byte), err error) {
	buf, err = syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, nil, err
	}
	return buf, func(b []byte) { _ = syscall.Munmap(b) }, nil
}
