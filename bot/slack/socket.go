package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/slack-go/slack/socketmode"
)

// RunSocketMode receives events over Socket Mode until ctx ends, which is
// not an error. The websocket URL comes from apps.connections.open at the
// configured API URL; slack-go reconnects when Slack asks it to or the
// connection dies, and RunSocketMode returns an error only when it cannot
// connect at all (such as a revoked app token).
func (a *Adapter) RunSocketMode(ctx context.Context) error {
	if a.cfg.AppToken == "" {
		return errors.New("slack: socket mode needs an app-level token (xapp-…)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := socketmode.New(a.api, socketmode.OptionDebug(false))
	done := make(chan error, 1)
	go func() { done <- client.RunContext(ctx) }()
	for {
		select {
		case err := <-done:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("slack: socket mode: %w", err)
		case evt := <-client.Events:
			a.onSocketEvent(ctx, client, evt)
		}
	}
}

// onSocketEvent acknowledges a Socket Mode request at once and hands its
// payload to the same handlers the HTTP endpoints use.
func (a *Adapter) onSocketEvent(ctx context.Context, client *socketmode.Client, evt socketmode.Event) {
	req := evt.Request
	switch evt.Type {
	case socketmode.EventTypeConnected:
		a.log.Info("socket mode connected")
		return
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeErrorWriteFailed:
		a.log.Warn("socket mode trouble; slack-go reconnects", "event", evt.Type, "detail", fmt.Sprint(evt.Data))
		return
	case socketmode.EventTypeInvalidAuth:
		a.log.Error("socket mode refused the app token")
		return
	case socketmode.EventTypeErrorBadMessage:
		// slack-go could not decode the request with its own types. The
		// envelope is still acknowledged, so that Slack does not redeliver
		// it, and its payload still goes to our more forgiving parsers.
		bad, _ := evt.Data.(*socketmode.ErrorBadMessage)
		if bad == nil {
			return
		}
		req = &socketmode.Request{}
		if err := json.Unmarshal(bad.Message, req); err != nil {
			a.log.Warn("unreadable socket mode message", "err", bad.Cause)
			return
		}
	}
	if req == nil || req.EnvelopeID == "" {
		return // hello, disconnect: slack-go handles them
	}
	ack := func() {
		if err := client.AckCtx(ctx, req.EnvelopeID, nil); err != nil {
			a.log.Warn("could not acknowledge a socket mode request", "envelope", req.EnvelopeID, "err", err)
		}
	}
	payload := []byte(req.Payload)
	if req.Type == socketmode.RequestTypeEventsAPI {
		// Acknowledged once its question is taken, as over HTTP; the
		// wait is another goroutine's, so that the next envelope is read
		// meanwhile.
		c, err := decodeCallback(payload)
		if err != nil {
			ack() // Slack would deliver it again, as unreadable
			a.log.Warn("ignoring an event Slack sent", "err", err)
			return
		}
		a.background(func(context.Context) {
			a.takeThenAck(context.Background(), func(ctx context.Context) { a.onEvent(ctx, c) }, ack) // acked on the socket: never abandoned
		})
		return
	}
	if req.Type == socketmode.RequestTypeInteractive {
		// A modal's submission is answered in its acknowledgement.
		if resp, handled := a.onSettingsSubmission(ctx, payload); handled {
			var body any
			if resp != nil {
				body = resp
			}
			if err := client.AckCtx(ctx, req.EnvelopeID, body); err != nil {
				a.log.Warn("could not acknowledge a socket mode request", "envelope", req.EnvelopeID, "err", err)
			}
			return
		}
	}
	ack()
	switch req.Type {
	case socketmode.RequestTypeInteractive:
		a.background(func(ctx context.Context) { a.onInteraction(ctx, payload) })
	case socketmode.RequestTypeSlashCommands:
		c, err := parseCommandJSON(payload)
		if err != nil {
			a.log.Warn("ignoring a command Slack sent", "err", err)
			return
		}
		a.background(func(ctx context.Context) { a.onCommand(ctx, c) })
	default:
		a.log.Info("ignoring a socket mode request", "type", req.Type)
	}
}
