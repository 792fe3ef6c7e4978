package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"
)

// ConfigTable renders the settings of Config as a Markdown table: the
// README embeds it, and a test checks that the two agree.
func ConfigTable() string {
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n|---|---|---|\n")
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		def := f.Tag.Get("default")
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Tag.Get("env"), def, f.Tag.Get("help"))
	}
	return b.String()
}

func (m *Main) printConfig() error {
	_, err := io.WriteString(m.Stdout, ConfigTable())
	return err
}
