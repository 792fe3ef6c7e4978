//go:build !linux

package ingest

import "errors"

// mapMemory is not available here: readers' memory is a Go slice of the
// full size (see pdfMemory.Allocate).
func mapMemory(int) ([]byte, func([]byte), error) {
	return nil, nil, errors.New("no anonymous mappings on this system")
}
