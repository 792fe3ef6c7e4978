package main

import (
	"testing"

	"github.com/switchboard/switchboard/bot/viewtest"
)

// The golden set of words people read (bot/viewtest) names this
// program's settings and commands as it does: a renamed setting or
// command shows up there.
func TestWordsNameThisProgram(t *testing.T) {
	if got := words(); got != viewtest.Words {
		t.Errorf("words() = %+v\nthe golden set names %+v", got.Names, viewtest.Words.Names)
	}
}
