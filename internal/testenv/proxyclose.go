package testenv

// Close stops the proxy before the test ends: from then on nothing listens
// on its port, and connections are refused, as by a server whose process
// is gone (SetDown plays one that accepts and drops them). Closing it
// again, as the test's end does, is harmless.
func (p *Proxy) Close() { p.close() }
