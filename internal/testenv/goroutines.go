package testenv

import (
	"runtime"
	"strings"
)

// Goroutines counts the goroutines whose stack names fn (a function as
// stack traces print it, such as "breaker.(*Breaker).probeUntilClosed"):
// for tests that check that what a part started has stopped.
func Goroutines(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), fn)
		}
		buf = make([]byte, 2*len(buf)) // bounded by the goroutines there are
	}
}
