package slack

import (
	"context"
	"log/slog"
	"testing"
)

// A delivery Slack gave up on before it was acknowledged is not
// acknowledged, and its handling is told (its context ends): Slack
// delivers it again. One acknowledged in time keeps its handling going.
func TestTakeThenAckTellsAnAbandonedDelivery(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	for _, abandoned := range []bool{true, false} {
		delivery, cancel := context.WithCancel(context.Background())
		if abandoned {
			cancel()
		}
		handled := make(chan error, 1)
		acked := false
		a.takeThenAck(delivery, func(ctx context.Context) {
			if abandoned {
				<-ctx.Done() // the handling is cancelled
			}
			handled <- ctx.Err() // taken: acknowledged at once
		}, func() { acked = true })
		cancel() // the request ends once answered
		err := <-handled
		a.Wait()
		if abandoned && (acked || err == nil) || !abandoned && (!acked || err != nil) {
			t.Errorf("abandoned %v: acked %v, handling's context %v", abandoned, acked, err)
		}
	}
}
