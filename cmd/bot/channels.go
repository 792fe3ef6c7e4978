package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard/switchboard/channels"
)

const channelsSynopsis = `channels set CHANNEL [--sources PREFIX,…] [--replies mention|asker|anyone|all] [--private true|false] [--experts ID,…]
       switchboard channels show [CHANNEL]`

// channelsCmd changes and shows the channels' settings (issue 26). A
// change from here is made by "cli:<$USER>", and is logged as one made in
// chat is.
func (m *Main) channelsCmd(ctx context.Context, app *App, args []string) error {
	if len(args) == 0 || (args[0] != "set" && args[0] != "show") {
		fmt.Fprintf(m.Stderr, "Usage: switchboard %s\n", channelsSynopsis)
		return errUsage
	}
	if args[0] == "show" {
		return m.channelsShow(ctx, app, args[1:])
	}
	return m.channelsSet(ctx, app, args[1:])
}

// channelsSet changes the settings given as flags, keeping the others.
func (m *Main) channelsSet(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("channels set", channelsSynopsis+"\n\nCHANNEL is the platform's channel id (Slack C…, a Discord channel id); flags not given keep their value.")
	sources := fs.String("sources", "", "the ingest key prefixes (handbook/docs/hr/, slack:C42) and graph or web that answers here may cite, comma-separated; empty: every source")
	replies := fs.String("replies", "", "which messages are questions: mention, asker, anyone, or all (a help channel)")
	private := fs.String("private", "", "true: answers go to the asker alone, with a button to share them")
	experts := fs.String("experts", "", "user or group ids to ask when the bot cannot answer, comma-separated")
	channel, args := leadingArg(args)
	if err := parse(fs, args); err != nil {
		return err
	}
	if channel == "" && fs.NArg() == 1 {
		channel = fs.Arg(0)
	} else if fs.NArg() > 0 || channel == "" {
		fs.Usage()
		return errUsage
	}
	s, err := app.Channels.Settings(ctx, channel)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["sources"] {
		s.Sources = channels.ParseList(*sources)
	}
	if set["experts"] {
		s.Experts = channels.ParseList(*experts)
	}
	if set["replies"] {
		if s.Replies, err = channels.ParseReplies(*replies); err != nil {
			return err
		}
	}
	if set["private"] {
		if s.Private, err = strconv.ParseBool(*private); err != nil {
			return fmt.Errorf("--private must be true or false, not %q", *private)
		}
	}
	s.ChangedBy, s.ChangedAt = "cli:"+cmp.Or(m.Getenv("USER"), "unknown"), app.now()
	if err := app.Channels.SetSettings(ctx, s); err != nil {
		return err
	}
	return writeSettings(m.Stdout, []channels.Settings{s})
}

// channelsShow lists every channel's settings with who changed them last;
// with a channel, its settings and every change made to them.
func (m *Main) channelsShow(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("channels show", "channels show [CHANNEL]")
	channel, args := leadingArg(args)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if channel == "" {
		all, err := app.Channels.AllSettings(ctx)
		if err != nil {
			return err
		}
		if len(all) == 0 {
			fmt.Fprintln(m.Stdout, "No channel has settings: every channel answers from every source the asker may read, and answers the asker's replies in threads.")
			return nil
		}
		return writeSettings(m.Stdout, all)
	}
	s, err := app.Channels.Settings(ctx, channel)
	if err != nil {
		return err
	}
	if err := writeSettings(m.Stdout, []channels.Settings{s}); err != nil {
		return err
	}
	log, err := app.Channels.SettingsLog(ctx, channel)
	if err != nil || len(log) == 0 {
		return err
	}
	fmt.Fprintln(m.Stdout, "\nChanges, oldest first:")
	return writeSettings(m.Stdout, log)
}

// leadingArg splits off an argument given before the flags.
func leadingArg(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// writeSettings writes settings as a table, one line each.
func writeSettings(w io.Writer, all []channels.Settings) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tSOURCES\tREPLIES\tPRIVATE\tEXPERTS\tCHANGED BY\tCHANGED AT")
	for _, s := range all {
		changed, at := cmp.Or(s.ChangedBy, "-"), "-"
		if !s.ChangedAt.IsZero() {
			at = s.ChangedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\t%s\n", s.Channel, cmp.Or(strings.Join(s.Sources, ","), "(all)"),
			s.ReplyMode(), s.Private, cmp.Or(strings.Join(s.Experts, ","), "-"), changed, at)
	}
	return tw.Flush()
}
