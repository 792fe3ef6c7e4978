package chat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard/switchboard/ingest/extract"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb"
)

// Document kinds, in Document.Metadata["kind"].
const (
	KindThread = "thread"
	KindDay    = "day"
	KindFile   = "file"
)

// DefaultChunkSize is how many characters of conversation go into one
// chunk. It stays under the pipeline's default chunk size, so that the
// pipeline keeps the chunks as they are and only cuts single messages
// longer than that.
const DefaultChunkSize = 900

// dayLayout names a day in document keys and metadata.
const dayLayout = "2006-01-02"

// DayKey is the key of a channel's document for the messages of day (UTC)
// that are not part of a thread.
func DayKey(ch Channel, day time.Time) string {
	return ch.Platform + ":" + ch.ID + ":day:" + day.UTC().Format(dayLayout)
}

// ThreadKey is the key of a thread's document.
func ThreadKey(ch Channel, thread string) string {
	return ch.Platform + ":" + ch.ID + ":thread:" + thread
}

// FileKey is the key of the document of a file attached to a message in
// a channel. The message is part of it, so that the message's files can be
// found (by the prefix FileKey(ch, message, "")) when it is edited or
// deleted.
func FileKey(ch Channel, message, file string) string {
	return ch.Platform + ":" + ch.ID + ":file:" + message + ":" + file
}

// legacyFileKey is the key file documents had before it named their
// message.
func legacyFileKey(ch Channel, file string) string {
	return ch.Platform + ":" + ch.ID + ":file:" + file
}

// dayStart is the start (UTC) of the day t falls on.
func dayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// sortMessages orders messages oldest first. Snowflakes of different
// lengths do not compare as strings, hence the length before the text.
func sortMessages(msgs []Message) {
	slices.SortStableFunc(msgs, func(a, b Message) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		if c := len(a.ID) - len(b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// builder turns messages into documents for one channel.
type builder struct {
	ch        Channel
	chunkSize int
}

// content is what a document says: its chunks, and its messages as
// passages for graph extraction.
type content struct {
	doc      kb.Document
	passages []extract.Passage
	messages int
	forget   []string // origins of facts to forget besides the passages' (a deleted message's)
}

// dayDoc returns the document of the messages of one day that are not
// part of a thread; ok is false when there are none.
func (b builder) dayDoc(day time.Time, msgs []Message) (content, bool) {
	var own []Message
	for _, m := range msgs {
		if !m.InThread() {
			own = append(own, m)
		}
	}
	if len(own) == 0 {
		return content{}, false
	}
	title := "#" + b.ch.Name + ", " + day.Format("2 Jan 2006")
	md := map[string]string{"kind": KindDay, "day": day.Format(dayLayout)}
	return b.doc(DayKey(b.ch, day), title, own[0].Permalink, "", b.ch.Private, md, own), true
}

// threadDoc returns a thread's document; ok is false when it has no
// message with text.
func (b builder) threadDoc(t Thread, msgs []Message, private bool) (content, bool) {
	if len(msgs) == 0 {
		return content{}, false
	}
	title := "#" + b.ch.Name + " thread"
	if t.Name != "" {
		title = "#" + b.ch.Name + " › " + t.Name
	} else {
		title += ", " + msgs[0].Time.UTC().Format("2 Jan 2006")
		if first := text.OneLine(msgs[0].Text); first != "" {
			title += ": " + text.Clip(first, 60)
		}
	}
	loc := t.Permalink
	if loc == "" {
		loc = msgs[0].Permalink
	}
	md := map[string]string{"kind": KindThread, "thread": t.ID, "started": msgs[0].Time.UTC().Format(time.RFC3339)}
	if t.Name != "" {
		md["thread_name"] = t.Name
	}
	// A private thread is seen only in itself; a thread of a private
	// channel in that channel.
	scope := ""
	if t.Private {
		scope = t.ID
	}
	c := b.doc(ThreadKey(b.ch, t.ID), title, loc, scope, private || t.Private, md, msgs)
	return c, len(c.doc.Chunks) > 0
}

// doc builds a document of messages, oldest first, packing their lines
// into chunks of about chunkSize characters. Each chunk links to its first
// message. scope is the channel the document is visible in, when it is
// not the channel itself.
func (b builder) doc(key, title, loc, scope string, private bool, md map[string]string, msgs []Message) content {
	sortMessages(msgs)
	size := b.chunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	if scope == "" {
		scope = b.ch.ID
	}
	md["platform"], md["channel"], md["channel_name"] = b.ch.Platform, b.ch.ID, b.ch.Name
	md["messages"] = strconv.Itoa(len(msgs))
	doc := kb.Document{Key: key, Title: title, Location: loc, Workspace: b.ch.Workspace,
		Channel: scope, Private: private, Metadata: md}
	var c content
	var cur []Message
	var lines []string
	curLen := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		doc.Chunks = append(doc.Chunks, kb.Chunk{
			Index:    len(doc.Chunks),
			Content:  strings.Join(lines, "\n"),
			Location: cur[0].Permalink,
			Metadata: chunkMetadata(cur),
		})
		cur, lines, curLen = nil, nil, 0
	}
	hash := kb.Hash // the document's hash covers what every chunk shows
	var h strings.Builder
	h.WriteString(title + "\x00" + loc + "\x00" + scope + "\x00" + strconv.FormatBool(private))
	for _, m := range msgs {
		line := messageLine(m)
		if line == "" {
			continue
		}
		fmt.Fprintf(&h, "\x00%s\x00%s\x00%s", m.ID, m.Permalink, line)
		n := utf8.RuneCountInString(line)
		if curLen > 0 && curLen+1+n > size {
			flush()
		}
		cur = append(cur, m)
		lines = append(lines, line)
		curLen += n + 1
		if t := strings.TrimSpace(m.Text); t != "" {
			origin := m.Permalink
			if origin == "" {
				origin = key + "#" + m.ID
			}
			c.passages = append(c.passages, passage(t, origin))
		}
		c.messages++
	}
	flush()
	doc.Hash = hash(h.String())
	c.doc = doc
	return c
}

// messageLine is a message as it is indexed: "Author: text", with its
// files named. Empty for a message with nothing to show.
func messageLine(m Message) string {
	line := strings.TrimSpace(m.Text)
	for _, f := range m.Files {
		if f.Name != "" {
			line = strings.TrimSpace(line + " [file: " + text.OneLine(f.Name) + "]")
		}
	}
	if line == "" {
		return ""
	}
	author := text.OneLine(m.Author)
	if author == "" {
		author = "someone"
	}
	return author + ": " + line
}

// chunkMetadata describes a chunk by its first message, and names every
// author in it.
func chunkMetadata(msgs []Message) map[string]string {
	first := msgs[0]
	md := map[string]string{
		"author":  first.Author,
		"message": first.ID,
		"time":    first.Time.UTC().Format(time.RFC3339),
	}
	if first.Permalink != "" {
		md["permalink"] = first.Permalink
	}
	if first.Thread != "" {
		md["thread"] = first.Thread
	}
	var authors []string
	for _, m := range msgs {
		if m.Author != "" && !slices.Contains(authors, m.Author) && len(authors) < 10 {
			authors = append(authors, m.Author)
		}
	}
	md["authors"] = strings.Join(authors, ", ")
	if len(msgs) > 1 {
		md["last_message"] = msgs[len(msgs)-1].ID
	}
	return md
}

func passage(text, origin string) extract.Passage {
	return extract.Passage{Text: text, Origin: origin}
}
