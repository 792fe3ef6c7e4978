package testenv

import "runtime/metrics"

// HeapAllocated is the bytes allocated on Go's heap since the process
// started. Tests bound what a call allocates with the difference of two
// readings: a count, not a sample, so it does not depend on when the
// collector runs or on how loaded the machine is.
func HeapAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
