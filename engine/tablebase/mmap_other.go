//go:build !linux

package tablebase

import (
	"io"
	"os"
)

// mapFile reads the first size bytes of f into memory, where this package
// does not map files.
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
