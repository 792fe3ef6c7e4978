package slackhist

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/ingest/chat"
)

// A server that answers every page with the same next cursor must not
// keep History (or Replies) paging for ever.
func TestPagingStopsOnARepeatedCursor(t *testing.T) {
	var pages atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/auth.test"):
			fmt.Fprint(w, `{"ok":true,"team_id":"T1","user_id":"UBOT","url":"https://x.slack.com/"}`)
		case strings.HasSuffix(r.URL.Path, "/conversations.history"), strings.HasSuffix(r.URL.Path, "/conversations.replies"):
			pages.Add(1)
			fmt.Fprint(w, `{"ok":true,"messages":[{"type":"message","ts":"1700000000.000100","thread_ts":"1700000000.000100","text":"hi","user":"U1","username":"ann"}],"has_more":true,"response_metadata":{"next_cursor":"same"}}`)
		case strings.HasSuffix(r.URL.Path, "/users.info"):
			fmt.Fprint(w, `{"ok":true,"user":{"id":"U1","name":"ann"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s, err := New(Config{BotToken: "xoxb-1", APIURL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch := chat.Channel{Platform: "slack", Workspace: "T1", ID: "C1"}
	err = s.History(ctx, ch, time.Time{}, time.Time{}, func([]chat.Message) error { return nil })
	if err == nil || ctx.Err() != nil || pages.Load() > 3 {
		t.Fatalf("History = %v after %d pages (ctx: %v); want an error at once", err, pages.Load(), ctx.Err())
	}
	pages.Store(0)
	_, _, err = s.Replies(ctx, ch, "1700000000.000100")
	if err == nil || ctx.Err() != nil || pages.Load() > 3 {
		t.Fatalf("Replies = %v after %d pages (ctx: %v); want an error at once", err, pages.Load(), ctx.Err())
	}
}
