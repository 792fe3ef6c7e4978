package discordhist_test

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/discordhist"
	"github.com/switchboard/switchboard/sqlite"
)

type embedder struct{ calls int }

func (e *embedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 8)
		h := fnv.New32a()
		h.Write([]byte(t))
		v[h.Sum32()%8] = 1
		out[i] = v
	}
	return out, nil
}

// stored reads every stored chunk: key → contents, and key → "channel private".
func stored(t *testing.T, path string) (map[string]string, map[string]string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT d.key, d.channel, d.private, c.content FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.key, c.idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	text, scope := map[string]string{}, map[string]string{}
	for rows.Next() {
		var key, ch, content string
		var private bool
		if err := rows.Scan(&key, &ch, &private, &content); err != nil {
			t.Fatal(err)
		}
		text[key] += content + "\n"
		scope[key] = fmt.Sprintf("%s %v", ch, private)
	}
	return text, scope
}

func count(docs map[string]string, s string) int {
	n := 0
	for _, d := range docs {
		n += strings.Count(d, s)
	}
	return n
}

func setup(t *testing.T) (*discordtest.Server, *chat.Ingester, string, *embedder) {
	t.Helper()
	fake := discordtest.New(t)
	src, err := discordhist.New(discordhist.Config{BotToken: fake.Token, APIURL: fake.APIURL})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	docs := sqlite.NewDocumentStore(db, "test")
	emb := &embedder{}
	in := &chat.Ingester{Source: src, Pipeline: &ingest.Pipeline{Store: docs, Embedder: emb}, Store: docs, Cursors: sqlite.NewCursors(db)}
	return fake, in, path, emb
}

var (
	start = time.Date(2024, 5, 6, 8, 0, 0, 0, time.UTC)
	alice = discordtest.User{ID: "111", Username: "alice"}
	bob   = discordtest.User{ID: "222", Username: "bob"}
)

// A channel's messages (several pages of them), its active, archived and
// private threads and its attachments are ingested once, with message
// links; private threads are visible only in themselves.
func TestIngestDiscordChannel(t *testing.T) {
	fake, in, path, emb := setup(t)
	fake.AddChannel("G1", "C1", "general", false)
	var texts []string
	for i := 0; i < 350; i++ {
		who := alice
		if i%2 == 1 {
			who = bob
		}
		text := fmt.Sprintf("channel message %d", i)
		m := fake.PostAt("C1", who, text, start.Add(time.Duration(i)*10*time.Minute))
		texts = append(texts, text)
		if i == 7 {
			fake.Attach("C1", m.ID, "notes.md", "text/markdown", []byte("# Notes\n\nThe Lumen gateway ships in June."))
		}
	}
	active := fake.AddThread("C1", "launch plan", false, false, start.Add(time.Hour))
	archived := fake.AddThread("C1", "old incident", false, true, start.Add(26*time.Hour))
	private := fake.AddThread("C1", "salaries", true, true, start.Add(30*time.Hour))
	for i, th := range []string{active, archived, private} {
		for j := 0; j < 120; j++ { // more than one page
			text := fmt.Sprintf("thread %d reply %d", i, j)
			fake.PostAt(th, bob, text, start.Add(time.Duration(i*24+j)*time.Minute+2*time.Hour))
			texts = append(texts, text)
		}
	}

	ctx := context.Background()
	rep, err := in.Ingest(ctx, "C1", chat.Options{})
	if err != nil || !rep.Complete || rep.Threads != 3 || rep.Files != 1 || rep.Messages != len(texts) {
		t.Fatalf("%v\n%s", err, rep)
	}
	docs, scope := stored(t, path)
	for _, text := range texts {
		if n := count(docs, ": "+text+"\n") + count(docs, ": "+text+" [file:"); n != 1 {
			t.Fatalf("%q stored %d times", text, n)
		}
	}
	if !strings.Contains(docs["discord:C1:file:"+firstAttachment(fake)], "ships in June") {
		t.Errorf("attachment not indexed: %v", keys(docs))
	}
	threadKey := func(id string) string { return "discord:C1:thread:" + id }
	if !strings.HasPrefix(docs[threadKey(active)], "@bob: thread 0 reply 0\n") {
		t.Errorf("active thread: %.80q", docs[threadKey(active)])
	}
	if scope[threadKey(private)] != private+" true" || scope[threadKey(active)] != "C1 false" {
		t.Errorf("scopes: %v", scope)
	}

	calls := emb.calls
	if rep, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil || rep.Added+rep.Updated != 0 || emb.calls != calls {
		t.Errorf("second run: %v\n%s", err, rep)
	}
}

// firstAttachment returns the key suffix of the first attachment's document:
// "<message>:<attachment>".
func firstAttachment(fake *discordtest.Server) string {
	for _, m := range fake.Messages() {
		if len(m.Attachments) > 0 {
			return m.ID + ":" + m.Attachments[0].ID
		}
	}
	return ""
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A channel whose permission overwrites deny @everyone VIEW_CHANNEL is
// private; Discord's 429 is waited out; edits and deletions (in the
// channel and in a thread) reach the store.
func TestIngestDiscordPrivateChannelRateLimitsAndLiveChanges(t *testing.T) {
	fake, in, path, _ := setup(t)
	fake.AddChannel("G1", "C2", "leads", true)
	m1 := fake.PostAt("C2", alice, "Acme Corp supplies Globex", start)
	m2 := fake.PostAt("C2", bob, "noted", start.Add(time.Minute))
	th := fake.AddThread("C2", "details", false, false, start.Add(2*time.Minute))
	r1 := fake.PostAt(th, bob, "details follow", start.Add(3*time.Minute))

	fake.RateLimit("GET", "/channels/C2/messages", 2)
	ctx := context.Background()
	rep, err := in.Ingest(ctx, "C2", chat.Options{})
	if err != nil || !rep.Channel.Private || rep.Messages != 3 {
		t.Fatalf("%v\n%s", err, rep)
	}
	limited := 0
	for _, c := range fake.Calls() {
		if c.Status == 429 {
			limited++
		}
	}
	if limited != 2 {
		t.Errorf("%d requests were rate limited, want 2", limited)
	}
	_, scope := stored(t, path)
	for k, s := range scope {
		if s != "C2 true" {
			t.Errorf("%s: %s", k, s)
		}
	}

	// An edit in the channel, a deletion in the thread.
	fake.EditAt("C2", m1.ID, "Acme Corp supplies Initech", start.Add(time.Hour))
	if ok, _, err := in.Apply(ctx, chat.Change{Channel: "C2", Message: m1.ID, Time: discordhist.SnowflakeTime(m1.ID)}); !ok || err != nil {
		t.Fatalf("edit: %v %v", ok, err)
	}
	fake.DeleteMessage(th, r1.ID)
	if ok, _, err := in.Apply(ctx, chat.Change{Channel: th, Message: r1.ID, Time: discordhist.SnowflakeTime(r1.ID), Deleted: true}); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	docs, _ := stored(t, path)
	all := strings.Join(mapValues(docs), "")
	if strings.Contains(all, "supplies Globex") || !strings.Contains(all, "supplies Initech") || strings.Contains(all, "details follow") || !strings.Contains(all, "@bob: noted") {
		t.Errorf("after the changes:\n%s", all)
	}
	_ = m2
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
