package chat_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/ingest/slackhist"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/internal/testpdf"
	"github.com/switchboard/switchboard/neo4j"
	"github.com/switchboard/switchboard/sqlite"
)

// change is the chat.Change a Slack event about message ts reports.
func change(channel, ts, thread string, deleted bool) chat.Change {
	return chat.Change{Channel: channel, Message: ts, Thread: thread, Time: slackhist.TimeOf(ts), Deleted: deleted}
}

// Edits, deletions, new messages and new replies reach the store: the
// document holding the message is rebuilt from Slack's current state.
func TestLiveEditsAndDeletesPropagate(t *testing.T) {
	backends(t, func(t *testing.T, open func(testing.TB) *backend) {
		fake := slacktest.NewServer()
		defer fake.Close()
		g := generate(fake, channelSpec{id: "C1", name: "general", messages: 40, threads: 4, days: 2, start: march})
		b := open(t)
		in := newIngester(t, fake, b, &hashEmbedder{})
		ctx := context.Background()
		if _, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil {
			t.Fatal(err)
		}
		texts := slices.Clone(g.texts)
		apply := func(c chat.Change) {
			t.Helper()
			applied, rep, err := in.Apply(ctx, c)
			if err != nil || !applied {
				t.Fatalf("apply %+v: %v %v\n%s", c, applied, err, rep)
			}
		}
		replace := func(old, new string) {
			i := slices.Index(texts, old)
			if new == "" {
				texts = slices.Delete(texts, i, i+1)
			} else {
				texts[i] = new
			}
		}
		root := g.threads[1]
		reply := g.byText["general reply 2 in thread 1, message "+afterPrefix(g.texts, "general reply 2 in thread 1, message ")]

		// An edited reply.
		old := textOf(g, reply)
		fake.Edit("C1", reply, "general reply 2 in thread 1 was EDITED")
		apply(change("C1", reply, root, false))
		replace(old, "general reply 2 in thread 1 was EDITED")
		chunks, _ := b.chunks(t)
		checkEachOnce(t, chunks, texts)
		if n := occurrences(chunks, []string{old})[old]; n != 0 {
			t.Errorf("the old text is still stored %d times", n)
		}

		// A deleted reply.
		gone := g.byText["general reply 3 in thread 1, message "+afterPrefix(g.texts, "general reply 3 in thread 1, message ")]
		goneText := textOf(g, gone)
		fake.Delete("C1", gone)
		apply(change("C1", gone, root, true))
		replace(goneText, "")
		chunks, _ = b.chunks(t)
		checkEachOnce(t, chunks, texts)
		if n := occurrences(chunks, []string{goneText})[goneText]; n != 0 {
			t.Errorf("the deleted reply is still stored")
		}

		// A deleted standalone message, and a new one.
		standalone := g.byText["general standalone message 0 says hello"]
		fake.Delete("C1", standalone)
		apply(change("C1", standalone, "", true))
		replace("general standalone message 0 says hello", "")
		fresh := fake.PostAt("C1", "U2", "a brand new message", march.Add(36*time.Hour))
		apply(change("C1", fresh, "", false))
		texts = append(texts, "a brand new message")
		chunks, _ = b.chunks(t)
		checkEachOnce(t, chunks, texts)

		// A first reply moves a message from its day into a new thread;
		// deleting that reply moves it back.
		lone := g.byText["general standalone message 1 says hello"]
		first := fake.ReplyAt("C1", lone, "U3", "the first reply ever", march.Add(2*time.Hour))
		apply(change("C1", first, lone, false))
		texts = append(texts, "the first reply ever")
		chunks, _ = b.chunks(t)
		checkEachOnce(t, chunks, texts)
		key := chat.ThreadKey(chat.Channel{Platform: "slack", ID: "C1"}, lone)
		if got := strings.Join(chunks[key], "\n"); !strings.Contains(got, "standalone message 1") || !strings.Contains(got, "the first reply ever") {
			t.Errorf("new thread document: %q", got)
		}
		fake.Delete("C1", first)
		apply(change("C1", first, lone, true))
		texts = texts[:len(texts)-1]
		chunks, _ = b.chunks(t)
		checkEachOnce(t, chunks, texts)
		if _, ok := chunks[key]; ok {
			t.Errorf("the thread without replies still has a document")
		}

		// A deleted first message of a thread with replies: its
		// tombstone stays out, the replies stay in.
		rootText := textOf(g, root)
		fake.Delete("C1", root)
		apply(change("C1", root, root, true))
		replace(rootText, "")
		chunks, _ = b.chunks(t)
		checkEachOnce(t, chunks, texts)

		// Channels that were never ingested are left alone.
		fake.AddChannel("C9", "random", false)
		other := fake.PostAt("C9", "U1", "not ingested", march)
		if applied, _, err := in.Apply(ctx, change("C9", other, "", false)); applied || err != nil {
			t.Errorf("change in a channel never ingested: applied=%v err=%v", applied, err)
		}
	})
}

// A deleted message's attached files, and files an edit removed from a
// message, are gone from answers; the files a message keeps stay.
func TestLiveDeletesAttachedFiles(t *testing.T) {
	backends(t, func(t *testing.T, open func(testing.TB) *backend) {
		fake := slacktest.NewServer()
		defer fake.Close()
		fake.AddChannel("C1", "docs", false)
		fake.AddUser("U1", "Alice")
		lone := fake.PostAt("C1", "U1", "the plan", march)
		fake.AttachFile("C1", lone, "plan.txt", "text/plain", []byte("The zanzibar quokka protocol is secret."))
		root := fake.PostAt("C1", "U1", "notes in a thread", march.Add(time.Hour))
		reply := fake.ReplyAt("C1", root, "U1", "here", march.Add(2*time.Hour))
		fake.AttachFile("C1", reply, "ledger.md", "text/markdown", []byte("# Ledger\n\nThe periwinkle lighthouse ledger."))
		two := fake.PostAt("C1", "U1", "two files", march.Add(3*time.Hour))
		fake.AttachFile("C1", two, "keep.txt", "text/plain", []byte("The saffron walrus rule."))
		drop := fake.AttachFile("C1", two, "drop.txt", "text/plain", []byte("The obsidian pelican memo."))

		b := open(t)
		in := newIngester(t, fake, b, &hashEmbedder{})
		ctx := context.Background()
		if rep, err := in.Ingest(ctx, "C1", chat.Options{}); err != nil || rep.Files != 4 {
			t.Fatalf("%v\n%s", err, rep)
		}
		found := func(phrase string) bool {
			t.Helper()
			docs, err := b.retriever.Retrieve(ctx, agent.Request{Query: phrase,
				Scope: agent.Scope{Workspace: fake.TeamID, Channel: "C1"}, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if strings.Contains(d.Content, phrase) {
					return true
				}
			}
			return false
		}
		apply := func(c chat.Change) {
			t.Helper()
			if applied, rep, err := in.Apply(ctx, c); err != nil || !applied {
				t.Fatalf("apply %+v: %v %v\n%s", c, applied, err, rep)
			}
		}
		phrases := []string{"zanzibar quokka protocol", "periwinkle lighthouse ledger", "saffron walrus rule", "obsidian pelican memo"}
		for _, p := range phrases {
			if !found(p) {
				t.Fatalf("%q not retrievable after ingest", p)
			}
		}

		fake.Delete("C1", lone)
		apply(change("C1", lone, "", true))
		fake.Delete("C1", reply)
		apply(change("C1", reply, root, true))
		fake.DetachFile("C1", two, drop)
		apply(change("C1", two, "", false))

		for i, p := range phrases {
			if want := i == 2; found(p) != want {
				t.Errorf("%q retrievable: %v, want %v", p, !want, want)
			}
		}
		chunks, _ := b.chunks(t)
		for key, cs := range chunks {
			for _, p := range phrases[:2] {
				if strings.Contains(strings.Join(cs, "\n"), p) {
					t.Errorf("%s still holds %q", key, p)
				}
			}
		}
	})
}

func textOf(g generated, ts string) string {
	for text, t := range g.byText {
		if t == ts {
			return text
		}
	}
	return ""
}

// afterPrefix returns the rest of the first text with prefix.
func afterPrefix(texts []string, prefix string) string {
	for _, t := range texts {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			return rest
		}
	}
	return ""
}

// Attached text, Markdown, HTML and PDF files become documents; others
// are left alone, and a file already stored is not downloaded again.
func TestIngestSlackFiles(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "docs", false)
	fake.AddUser("U1", "Alice")
	m1 := fake.PostAt("C1", "U1", "the runbook and the review", march)
	fake.AttachFile("C1", m1, "runbook.md", "text/markdown", []byte("# Runbook\n\nRestart the billing service with care."))
	fake.AttachFile("C1", m1, "review.pdf", "application/pdf", testpdf.New("Supplier review", "Norrland Plastics supplies Vantor Sensors."))
	fake.AttachFile("C1", m1, "photo.png", "image/png", []byte("\x89PNG..."))
	root := fake.PostAt("C1", "U1", "notes in a thread", march.Add(time.Hour))
	reply := fake.ReplyAt("C1", root, "U1", "here", march.Add(2*time.Hour))
	fake.AttachFile("C1", reply, "notes.html", "text/html", []byte("<h1>Notes</h1><p>Quarterly numbers are final.</p>"))

	b := sqliteBackend(t)
	in := newIngester(t, fake, b, &hashEmbedder{})
	in.MaxFileSize = 1 << 20
	rep, err := in.Ingest(context.Background(), "C1", chat.Options{})
	if err != nil || rep.Files != 3 || len(rep.Skipped) != 0 {
		t.Fatalf("%v\n%s", err, rep)
	}
	chunks, _ := b.chunks(t)
	all := ""
	for k, cs := range chunks {
		all += k + ": " + strings.Join(cs, "\n") + "\n"
	}
	for _, want := range []string{"Restart the billing service", "Norrland Plastics supplies Vantor Sensors.", "Quarterly numbers are final.",
		"Alice: the runbook and the review [file: runbook.md] [file: review.pdf] [file: photo.png]"} {
		if !strings.Contains(all, want) {
			t.Errorf("store lacks %q:\n%s", want, all)
		}
	}
	if n := fake.Calls("files.download"); n != 3 {
		t.Errorf("%d downloads, want 3 (not the image)", n)
	}
	if _, err := in.Ingest(context.Background(), "C1", chat.Options{}); err != nil || fake.Calls("files.download") != 3 {
		t.Errorf("second run downloaded again: %v, %d downloads", err, fake.Calls("files.download"))
	}
	// Too large files are skipped and said so.
	fake.AttachFile("C1", reply, "big.txt", "text/plain", []byte(strings.Repeat("x", 2<<20)))
	fake.Edit("C1", reply, "here, and a big one") // so that the thread is read again
	_, rep2, err := in.Apply(context.Background(), change("C1", reply, root, false))
	if err != nil || len(rep2.Skipped) != 1 || !strings.Contains(rep2.Skipped[0], "too large") {
		t.Errorf("big file: %v %q", err, rep2.Skipped)
	}
}

// A PDF page of millions of text operators (19 MB, as in issue 21)
// attached in a channel is skipped, naming the file and the reason, and
// the run allocates on Go's heap little more than the download: the
// reader's memory is its own, outside the heap, and the file is not
// copied into it. Before, the run allocated about a gigabyte, and
// `bot serve` peaked near 1 GB (BenchmarkFileMemory measures the RSS).
func TestIngestSlackHostilePDF(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "docs", false)
	fake.AddUser("U1", "Alice")
	m := fake.PostAt("C1", "U1", "the new layout", march)
	hostile := testpdf.Operators(19 << 20)
	fake.AttachFile("C1", m, "layout.pdf", "application/pdf", hostile)
	b := sqliteBackend(t)
	in := newIngester(t, fake, b, &hashEmbedder{})
	ctx := context.Background()
	if _, _, err := ingest.FileText(ctx, "warm.pdf", "", testpdf.New("T", "Hello")); err != nil {
		t.Fatal(err) // the reader's code is loaded once a process, not per file
	}

	var rep chat.Report
	var err error
	allocated := testenv.Allocated(func() { rep, err = in.Ingest(ctx, "C1", chat.Options{}) })
	if err != nil || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "layout.pdf (in ") ||
		!strings.Contains(rep.Skipped[0], "out of memory at 256 MB") {
		t.Fatalf("%v; skipped %q, want layout.pdf, out of memory", err, rep.Skipped)
	}
	if limit := uint64(len(hostile)) * 3 / 2; allocated > limit {
		t.Errorf("the run allocated %d MB on Go's heap for a %d MB file; want at most %d MB",
			allocated>>20, len(hostile)>>20, limit>>20)
	}
	chunks, _ := b.chunks(t)
	all := ""
	for _, cs := range chunks {
		all += strings.Join(cs, "\n")
	}
	if !strings.Contains(all, "the new layout") || strings.Contains(all, "Globex") {
		t.Errorf("stored %q; want the message and nothing of the file", all)
	}
}

// graphUnderTest is a graph store with its retriever.
type graphUnderTest interface {
	extract.GraphWriter
	CountEdges(ctx context.Context) (int, error)
}

// Facts stated in a public channel reach the graph (SQLite's, Neo4j's)
// with the permalink of the message that states them; an edit takes back
// what the old text stated and a deletion all of it; private channels
// give no facts, and their documents are visible only in their channel.
func TestIngestSlackGraphFactsAndPrivacy(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		b := sqliteBackend(t)
		gs := b.graph.(*sqlite.GraphStore)
		testGraphFacts(t, b, gs, sqlite.NewGraphRetriever(gs))
	})
	t.Run("neo4j", func(t *testing.T) {
		uri := testenv.Neo4jURI(t)
		ctx := context.Background()
		g, err := neo4j.Open(ctx, neo4j.Config{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close(context.Background()) })
		if err := g.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		b := sqliteBackend(t)
		b.graph = g
		testGraphFacts(t, b, g, neo4j.NewGraphRetriever(g))
	})
}

func testGraphFacts(t *testing.T, b *backend, g graphUnderTest, ret agent.Retriever) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("CPUB", "suppliers", false)
	fake.AddChannel("CPRIV", "board", true)
	fake.AddUser("U1", "Alice")
	said := fake.PostAt("CPUB", "U1", "FYI: Acme Corp supplies Globex since 2021.", march)
	fake.PostAt("CPRIV", "U1", "Initech owns Hooli, confidentially.", march)

	in := newIngester(t, fake, b, &hashEmbedder{})
	ctx := context.Background()
	rep, err := in.Ingest(ctx, "CPUB", chat.Options{})
	if err != nil || rep.Relations != 1 || rep.Entities != 2 {
		t.Fatalf("public: %v\n%s", err, rep)
	}
	rep, err = in.Ingest(ctx, "CPRIV", chat.Options{})
	if err != nil || rep.Relations != 0 || !strings.Contains(rep.String(), "private channel") {
		t.Fatalf("private: %v\n%s", err, rep)
	}
	_, scope := b.chunks(t)
	for key, s := range scope {
		want := "CPUB private=false"
		if strings.Contains(key, "CPRIV") {
			want = "CPRIV private=true"
		}
		if s != want {
			t.Errorf("%s: %s, want %s", key, s, want)
		}
	}

	facts := func(q string) []agent.Document {
		docs, err := ret.Retrieve(ctx, agent.Request{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	link := fake.Permalink("CPUB", said)
	docs := facts("Who supplies Globex?")
	if len(docs) == 0 || !strings.Contains(docs[0].Content, "Acme Corp") || docs[0].Location != link {
		t.Fatalf("graph document lacks the fact or its source %s: %+v", link, docs)
	}
	if docs := facts("Who owns Hooli?"); len(docs) != 0 {
		t.Errorf("a fact from the private channel reached the graph: %v", docs)
	}

	// An edit takes back what the old text stated; a deletion all of it.
	fake.Edit("CPUB", said, "Correction: Acme Corp supplies Initech, not the other one.")
	if _, rep, err := in.Apply(ctx, change("CPUB", said, "", false)); err != nil || rep.Relations != 1 {
		t.Fatalf("edit: %v %s", err, rep)
	}
	for _, d := range facts("Who supplies Globex?") {
		if strings.Contains(d.Content, "-[SUPPLIES]-> Globex") {
			t.Errorf("the edited-away fact is still in the graph:\n%s", d.Content)
		}
	}
	if docs := facts("Who supplies Initech?"); len(docs) == 0 || !strings.Contains(docs[0].Content, "Acme Corp (Organization) -[SUPPLIES]-> Initech") {
		t.Errorf("the edited fact is not in the graph: %+v", docs)
	}
	fake.Delete("CPUB", said)
	if _, _, err := in.Apply(ctx, change("CPUB", said, "", true)); err != nil {
		t.Fatal(err)
	}
	if n, _ := g.CountEdges(ctx); n != 0 {
		t.Errorf("%d relations left after the only message stating any was deleted", n)
	}
}
