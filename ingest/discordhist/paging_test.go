package discordhist_test

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
	"github.com/switchboard/switchboard/ingest/discordhist"
)

// pagingServer answers every page of a channel's messages with the same
// full page, as a buggy or hostile server might; last is appended to it.
func pagingServer(t *testing.T, last string) (*discordhist.Source, *atomic.Int64) {
	var pages atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/users/@me"):
			fmt.Fprint(w, `{"id":"1","username":"bot"}`)
		case strings.HasSuffix(r.URL.Path, "/messages"):
			pages.Add(1)
			var b strings.Builder
			b.WriteString("[")
			n := 100
			if last != "" {
				n = 99
			}
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"id":"%d","type":0,"content":"m%d","channel_id":"10","author":{"id":"2","username":"ann"},"timestamp":"2024-05-01T00:00:00Z"}`,
					1200000000000000000+1000-i, i)
			}
			if last != "" {
				b.WriteString("," + last)
			}
			b.WriteString("]")
			fmt.Fprint(w, b.String())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	src, err := discordhist.New(discordhist.Config{BotToken: "x", APIURL: srv.URL + "/api/v10/"})
	if err != nil {
		t.Fatal(err)
	}
	return src, &pages
}

func TestHistoryStopsWhenThePageDoesNotMoveBack(t *testing.T) {
	src, pages := pagingServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ch := chat.Channel{Platform: "discord", Workspace: "9", ID: "10"}
	err := src.History(ctx, ch, time.Time{}, time.Time{}, func([]chat.Message) error { return nil })
	if err == nil || ctx.Err() != nil {
		t.Fatalf("History = %v after %d pages; want an error at once (ctx: %v)", err, pages.Load(), ctx.Err())
	}
	if pages.Load() > 2 {
		t.Errorf("read %d pages of the same messages", pages.Load())
	}
}

func TestHistorySurvivesANullMessage(t *testing.T) {
	src, _ := pagingServer(t, "null")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ch := chat.Channel{Platform: "discord", Workspace: "9", ID: "10"}
	// It must not panic; an error (the page repeats) is fine.
	_ = src.History(ctx, ch, time.Time{}, time.Time{}, func([]chat.Message) error { return nil })
}
