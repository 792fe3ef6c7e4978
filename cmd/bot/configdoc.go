package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// setting is one field of Config as its tags describe it.
type setting struct {
	name, def, help string
	secret          bool
	field           int // index in Config
}

// settingsDocs lists the settings of Config in order.
func settingsDocs() []setting {
	var out []setting
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		out = append(out, setting{name: f.Tag.Get("env"), def: f.Tag.Get("default"), help: f.Tag.Get("help"),
			secret: f.Tag.Get("secret") == "true", field: i})
	}
	return out
}

// ConfigTable renders the settings of Config as a Markdown table: the
// README embeds it, and a test checks that the two agree.
func ConfigTable() string {
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n|---|---|---|\n")
	for _, s := range settingsDocs() {
		def := s.def
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.name, def, s.help)
	}
	return b.String()
}

// config is `switchboard config`: the values in effect, secrets masked, and where
// each comes from; with --docs, the table of what each setting means.
func (m *Main) config(args []string) error {
	fs := m.newFlags("config", "config [--docs]")
	docs := fs.Bool("docs", false, "print what each setting means, as the Markdown table of the README")
	if err := parse(fs, args); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *docs {
		_, err := io.WriteString(m.Stdout, ConfigTable())
		return err
	}
	return m.printSettings()
}

// printSettings writes one line a setting: its name, its source
// (environment, default, or unset) and the value in effect. An invalid setting is
// shown as given, and the error it makes is returned after the list.
func (m *Main) printSettings() error {
	cfg, cfgErr := LoadConfig(m.Getenv)
	v := reflect.ValueOf(cfg)
	fmt.Fprintln(m.Stdout, "Settings in effect (secrets masked; `switchboard config --docs` says what each means):")
	fmt.Fprintln(m.Stdout)
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	for _, s := range settingsDocs() {
		raw, source := strings.TrimSpace(m.Getenv(s.name)), "environment"
		switch {
		case raw != "":
		case s.def != "":
			raw, source = s.def, "default"
		case cfgErr == nil && !v.Field(s.field).IsZero():
			// Defaults that are computed, such as the data folder.
			raw, source = fmt.Sprint(v.Field(s.field).Interface()), "default"
		default:
			source = "unset"
		}
		if s.secret {
			raw = maskSecret(raw)
		}
		if raw == "" {
			raw = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, source, raw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return cfgErr
}

// maskSecret hides a secret's value but shows that it is set: the
// password of a URL (the host stays readable), else all but the last four
// characters of a long value.
func maskSecret(s string) string {
	if s == "" {
		return ""
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return strings.Replace(u.String(), ":xxxxx@", ":****@", 1)
		}
		return u.Redacted()
	}
	if n := utf8.RuneCountInString(s); n >= 16 {
		return "****" + string([]rune(s)[n-4:])
	}
	return "****"
}
