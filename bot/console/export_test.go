package console

import (
	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

// Emit shows e, as the emitter bot.Follow(p.Show) does.
func (p *Progress) Emit(e agent.Event) { bot.Follow(p.Show)(e) }

// SetScreen gives p a terminal of cols × rows cells, as StreamTo does
// for a real one.
func SetScreen(p *Progress, cols, rows int) {
	p.screen = func() (int, int, bool) { return cols, rows, true }
}

// CellWidth is cellWidth, for the tests.
var CellWidth = cellWidth
