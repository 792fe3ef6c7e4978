package questions_test

import (
	"testing"
	"time"

	"github.com/switchboard/switchboard/questions"
	"github.com/switchboard/switchboard/questions/questionstest"
)

func TestMemory(t *testing.T) {
	questionstest.Run(t, func(_ *testing.T, now func() time.Time) questions.Store { return questions.NewMemory(now) })
}
