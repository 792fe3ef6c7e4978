package console

// SetScreen gives p a terminal of cols × rows cells, as StreamTo does
// for a real one.
func SetScreen(p *Progress, cols, rows int) {
	p.screen = func() (int, int, bool) { return cols, rows, true }
}

// CellWidth is cellWidth, for the tests.
var CellWidth = cellWidth
