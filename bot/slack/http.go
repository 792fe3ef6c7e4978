package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxBody bounds a request from Slack; events and interaction payloads
// are a few kilobytes.
const maxBody = 1 << 20

// Handler serves Slack's request URLs: POST /slack/events (the Events API),
// POST /slack/interactions (buttons) and POST /slack/commands (/ask).
// Every request must carry a valid signature made with the signing secret
// no more than five minutes ago, or it is refused with 401. Deliveries are answered 200 at once and handled
// afterwards.
func (a *Adapter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/events", a.serveEvents)
	mux.HandleFunc("POST /slack/interactions", a.serveInteractions)
	mux.HandleFunc("POST /slack/commands", a.serveCommands)
	return mux
}

func (a *Adapter) serveEvents(w http.ResponseWriter, r *http.Request) {
	body, ok := a.verify(w, r)
	if !ok {
		return
	}
	env, err := decodeCallback(body)
	if err != nil {
		http.Error(w, "malformed event", http.StatusBadRequest)
		return
	}
	switch env.Type {
	case slackevents.URLVerification:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(slackevents.ChallengeResponse{Challenge: env.Challenge})
	case slackevents.CallbackEvent:
		// Acknowledged once the question is taken (stored, with a
		// question store), so that a process that dies before then
		// leaves the event to Slack's retry; but within ackWithin,
		// since Slack retries what is not answered in 3s. Retries
		// (X-Slack-Retry-Num) are handled like first deliveries; the
		// dispatcher recognises them by event id.
		a.takeThenAck(r.Context(), func(ctx context.Context) { a.onEvent(ctx, env) }, func() { w.WriteHeader(http.StatusOK) })
	default:
		a.log.Info("ignoring an Events API request", "type", env.Type)
		w.WriteHeader(http.StatusOK)
	}
}

func (a *Adapter) serveInteractions(w http.ResponseWriter, r *http.Request) {
	body, ok := a.verify(w, r)
	if !ok {
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		http.Error(w, "malformed interaction", http.StatusBadRequest)
		return
	}
	payload := []byte(form.Get("payload"))
	// A modal's submission is answered in the response: it closes the
	// modal, or keeps it open with errors.
	if resp, handled := a.onSettingsSubmission(r.Context(), payload); handled {
		w.Header().Set("Content-Type", "application/json")
		if resp != nil {
			_ = json.NewEncoder(w).Encode(resp)
		}
		return
	}
	w.WriteHeader(http.StatusOK)
	a.background(func(ctx context.Context) { a.onInteraction(ctx, payload) })
}

// verify reads the body and checks Slack's signature over it, answering
// 401 (or 413) itself when the request is not from Slack.
func (a *Adapter) verify(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "could not read the request", http.StatusBadRequest)
		}
		return nil, false
	}
	sv, err := slack.NewSecretsVerifier(r.Header, a.cfg.SigningSecret)
	if err == nil {
		_, _ = sv.Write(body)
		err = sv.Ensure()
	}
	if err != nil {
		// Bad signatures, stale timestamps (replays) and a missing secret
		// all end here; the reason goes to the log, not to the caller.
		a.log.Warn("refused an unverified request", "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}
