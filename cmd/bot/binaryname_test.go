package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The binary is named switchboard wherever the repository builds it or
// tells people to run it: a binary named bot, built at the top of a
// checkout, would land in the bot/ package folder (`go build -o bot`
// writes bot/bot) and `./bot ask` would fail with "Is a directory".
var (
	// botCommand is a subcommand run as bot: "bot serve", `bot ingest`.
	botCommand = regexp.MustCompile(`(^|[^a-zA-Z/._-])bot (serve|ask|chat|ingest|graph|migrate|eval|config|version|healthcheck|help)\b`)
	// botBinary is a binary built or run as bot: -o bot, bin/bot, ./bot.
	botBinary = regexp.MustCompile(`(-o |bin/|\./|OUT=\S*/)bot\b[^/]`)
)

func TestBinaryIsNamedSwitchboard(t *testing.T) {
	files := []string{"README.md", "Dockerfile", "Makefile", "docker-compose.yml", ".ci/run", "slack-app-manifest.yml"}
	for _, glob := range []string{"docs/*.md", "scripts/*.sh"} {
		m, err := filepath.Glob(filepath.Join("../..", glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			files = append(files, strings.TrimPrefix(filepath.ToSlash(f), "../../"))
		}
	}
	texts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	// What the program itself says: its usage, the settings' help, and
	// the answer that tells people how to fill the knowledge base.
	help, _, _ := run(t, map[string]string{}, "help")
	texts["switchboard help"] = help
	texts["switchboard config --docs"] = ConfigTable()
	empty := askJSON(t, map[string]string{"SWITCHBOARD_DEMO": "false"}, "What is our refund policy?")
	texts["the empty knowledge base's answer"] = empty.Answer
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			if botCommand.MatchString(line) || botBinary.MatchString(line+" ") {
				t.Errorf("%s:%d names the binary bot: %s", name, i+1, strings.TrimSpace(line))
			}
		}
	}
	if !strings.Contains(texts["Dockerfile"], `ENTRYPOINT ["/usr/local/bin/switchboard"]`) {
		t.Error("the image's entrypoint is not /usr/local/bin/switchboard")
	}
	if !strings.Contains(texts["scripts/build.sh"], `out="${OUT:-bin/switchboard}"`) {
		t.Error("scripts/build.sh does not build bin/switchboard by default")
	}
	if !strings.Contains(empty.Answer, "`switchboard ingest PATH…`") {
		t.Errorf("the empty knowledge base's answer does not name switchboard ingest:\n%s", empty.Answer)
	}
}
