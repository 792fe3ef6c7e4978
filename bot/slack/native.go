package slack

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/slackapi"
)

// nativeReplier shows one question's view with Slack's AI-app surface
// (Config.Native): the progress as the thread's status
// (assistant.threads.setStatus), the draft streamed into one message
// (chat.startStream, chat.appendStream), and the final blocks (sources,
// badge, feedback buttons) given to chat.stopStream. A stream only grows:
// a draft the check rejected stays, and what replaces it follows under
// the presenter's label.
//
// Where Slack will not (no status in this thread, streaming refused by
// the workspace), it falls back to the classic replier's post-and-edit,
// and the adapter remembers a workspace that refused streaming. Whatever
// happens, the question gets one final message: a stream that cannot be
// finished is left as it is and the answer posted as a new reply.
type nativeReplier struct {
	*replier // the fallback; also Private and the markers
	team     string

	mu       sync.Mutex // held through every call, so that views are shown in order
	classic  bool       // fell back to post-and-edit
	stream   string     // the streamed message's ts, once started
	streamed string     // the markdown streamed so far
	draftAt  int        // where the current draft starts in streamed
	redraft  bool       // the draft streamed was dropped: the next one is a rewrite
	status   string     // the status set last
}

func (a *Adapter) nativeReplier(team, channel, thread, user string) *nativeReplier {
	return &nativeReplier{replier: a.replier(channel, thread, user), team: team}
}

// replierFor is the replier of a question: native where Config.Native
// says so, else the classic one.
func (a *Adapter) replierFor(in bot.Incoming) bot.Replier {
	if a.cfg.Native {
		return a.nativeReplier(in.Workspace, in.Channel, in.Thread, in.User)
	}
	return a.replier(in.Channel, in.Thread, in.User)
}

// errRefused says that Slack refuses streaming here.
var errRefused = errors.New("slack: streaming refused")

// Start sets the thread's status; without one, it posts the placeholder.
func (n *nativeReplier) Start(ctx context.Context, v bot.View) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.named(v)
	if !n.classic && !n.a.refusesStreaming(n.team) {
		err := n.setStatus(ctx, StatusLine(v))
		if err == nil {
			return nil
		}
		n.a.log.Info("no status in this thread; posting a placeholder", "channel", n.channel, "thread", n.thread, "err", err)
	}
	n.classic = true
	return n.replier.Start(ctx, v)
}

// Update shows the progress as the status and streams the draft.
func (n *nativeReplier) Update(ctx context.Context, v bot.View) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.classic {
		return n.replier.Update(ctx, v)
	}
	if line := StatusLine(v); line != n.status {
		if err := n.setStatus(ctx, line); err != nil {
			n.a.log.Warn("could not set the thread's status", "channel", n.channel, "thread", n.thread, "err", err)
		}
	}
	draft := StreamDraft(v.Draft)
	if draft == "" {
		n.redraft = n.redraft || len(n.streamed) > n.draftAt
		return nil
	}
	var more string
	switch shown := n.streamed[n.draftAt:]; {
	case n.redraft:
		sep := "\n\n_" + bot.RewrittenLabel + "_\n\n"
		n.redraft, n.draftAt, more = false, len(n.streamed)+len(sep), sep+draft
	case strings.HasPrefix(draft, shown):
		more = draft[len(shown):]
	default:
		return nil // the draft changed what was streamed: the checked answer follows it
	}
	err := n.append(ctx, more)
	if errors.Is(err, errRefused) {
		n.classic = true
		return n.replier.Start(ctx, v)
	}
	return err
}

// Finish ends the stream with the answer and its blocks, starting it if
// no draft was streamed.
func (n *nativeReplier) Finish(ctx context.Context, v bot.View) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.named(v)
	if n.classic {
		return n.replier.Finish(ctx, v)
	}
	answer, blocks := StreamFinal(v)
	md := answer
	if n.stream != "" {
		switch {
		case v.Final != nil && !n.redraft && n.streamed[n.draftAt:] == StreamDraft(v.Final.Answer):
			md = "" // the draft streamed is the answer
		case v.Final != nil:
			md = "\n\n*" + bot.CheckedAnswerLabel + "*\n\n" + answer
		default:
			md = "\n\n" + answer
		}
	}
	err := n.stop(ctx, md, mark(blocks, n.marker("f0")))
	if err == nil {
		return nil
	}
	// Slack refused, or failed past the retries: the answer is posted
	// the classic way, which redelivers it if Slack is down.
	n.a.log.Warn("could not finish the streamed answer; posting it as a reply", "channel", n.channel, "thread", n.thread, "err", err)
	n.classic = true
	return n.replier.Finish(ctx, v)
}

// Address implements bot.Addressed: the classic address, marked native.
func (n *nativeReplier) Address() ([]byte, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.replier.address(&native{Team: n.team, Classic: n.classic}, nil)
}

// named takes the answer id of the markers from v.
func (n *nativeReplier) named(v bot.View) {
	n.replier.mu.Lock()
	defer n.replier.mu.Unlock()
	n.name(v)
}

func (n *nativeReplier) setStatus(ctx context.Context, line string) error {
	err := slackapi.Retry(ctx, n.a.progress, "assistant.threads.setStatus", func() error {
		return n.a.api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
			ChannelID: n.channel, ThreadTS: n.thread, Status: line})
	})
	if err == nil {
		n.status = line
	}
	return err
}

// append streams md, starting the stream with it if there is none yet.
func (n *nativeReplier) append(ctx context.Context, md string) error {
	for _, part := range streamParts(md) {
		if err := n.send(ctx, part, nil, false); err != nil {
			return err
		}
	}
	return nil
}

// stop streams md and ends the stream with blocks under it.
func (n *nativeReplier) stop(ctx context.Context, md string, blocks []slack.Block) error {
	parts := streamParts(md)
	for len(parts) > 1 || (len(parts) == 1 && n.stream == "") { // Finish starts a stream with text
		if err := n.send(ctx, parts[0], nil, false); err != nil {
			return err
		}
		parts = parts[1:]
	}
	return n.send(ctx, strings.Join(parts, ""), blocks, true)
}

// send makes one streaming call: chat.startStream when there is no
// stream yet, else chat.appendStream, or chat.stopStream when stop. In a
// channel, a stream names its recipient, as Slack requires.
func (n *nativeReplier) send(ctx context.Context, md string, blocks []slack.Block, stop bool) error {
	opts := []slack.MsgOption{slack.MsgOptionMarkdownText(md)}
	method := "chat.appendStream"
	switch {
	case n.stream == "":
		method = "chat.startStream"
		opts = append(opts, slack.MsgOptionTS(n.thread))
		if !strings.HasPrefix(n.channel, "D") {
			opts = append(opts, slack.MsgOptionRecipientUserID(n.user), slack.MsgOptionRecipientTeamID(n.team))
		}
	case stop:
		method = "chat.stopStream"
		if len(blocks) > 0 {
			opts = append(opts, slack.MsgOptionBlocks(blocks...))
		}
	}
	err := n.a.retry(ctx, method, func() error {
		var err error
		switch method {
		case "chat.startStream":
			var ts string
			_, ts, err = n.a.api.StartStreamContext(ctx, n.channel, opts...)
			n.stream = ts
		case "chat.stopStream":
			_, _, err = n.a.api.StopStreamContext(ctx, n.channel, n.stream, opts...)
		default:
			_, _, err = n.a.api.AppendStreamContext(ctx, n.channel, n.stream, opts...)
		}
		return err
	})
	switch {
	case err == nil:
		n.streamed += md
		return nil
	case method == "chat.startStream" && !slackapi.Temporary(err) && ctx.Err() == nil:
		n.a.refuseStreaming(n.team, err)
		return errRefused
	}
	return err
}

// refusesStreaming reports whether the workspace refused a stream before.
func (a *Adapter) refusesStreaming(team string) bool {
	_, ok := a.noStream.Load(team)
	return ok
}

// refuseStreaming remembers that the workspace refuses streams, for as
// long as the process runs: its questions are posted and edited.
func (a *Adapter) refuseStreaming(team string, err error) {
	if _, known := a.noStream.LoadOrStore(team, true); !known {
		a.log.Warn("Slack refuses streamed answers in this workspace; posting and editing them instead", "team", team, "err", err)
	}
}
