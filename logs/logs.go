// Package logs sets up Switchboard's structured logging (log/slog): JSON for
// log collectors, text for people at a terminal, and attributes carried by
// a context, so that every line a run writes names its thread and run
// whichever package writes it.
//
// What may be logged: ids, routes, counts, durations and errors at any
// level; the words of a question, a search query or generated Cypher only
// at debug level; secrets never.
package logs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// Formats of New.
const (
	FormatJSON = "json"
	FormatText = "text"
	FormatAuto = "auto" // text when w is a terminal, else JSON
)

// New returns a logger that writes to w in format (FormatJSON, FormatText
// or FormatAuto) at level and above, adding the attributes of With to the
// lines written with a context (InfoContext and the like).
func New(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	if format == FormatAuto {
		format = FormatJSON
		if IsTerminal(w) {
			format = FormatText
		}
	}
	var h slog.Handler
	switch format {
	case FormatJSON:
		h = slog.NewJSONHandler(w, opts)
	case FormatText:
		h = slog.NewTextHandler(w, opts)
	default:
		return nil, fmt.Errorf("logs: format %q is not json, text or auto", format)
	}
	return slog.New(contextHandler{h}), nil
}

// IsTerminal reports whether w is a character device, such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

type attrsKey struct{}

// With returns a context whose log lines carry args (key-value pairs or
// slog.Attr, as slog.Logger.With takes them) after those ctx carries.
func With(ctx context.Context, args ...any) context.Context {
	prev, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	r := slog.NewRecord(time.Time{}, 0, "", 0) // turns args into attrs as slog does
	r.Add(args...)
	attrs := append([]slog.Attr(nil), prev...)
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	return context.WithValue(ctx, attrsKey{}, attrs)
}

// contextHandler adds the attributes of With to every record.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if attrs, ok := ctx.Value(attrsKey{}).([]slog.Attr); ok {
		r = r.Clone()
		r.AddAttrs(attrs...)
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
