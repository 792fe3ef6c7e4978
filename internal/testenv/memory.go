package testenv

import "runtime/metrics"

// Allocated returns the bytes fn allocated on Go's heap (with those of
// any goroutine running meanwhile). It counts allocations, it does not
// sample the heap, so the figure does not depend on when the collector
// runs or on how loaded the machine is: tests bound with it what a call
// holds, where RSS would be noise.
func Allocated(fn func()) uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	start := s[0].Value.Uint64()
	fn()
	metrics.Read(s)
	return s[0].Value.Uint64() - start
}
