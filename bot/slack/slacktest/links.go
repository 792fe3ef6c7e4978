package slacktest

import (
	"regexp"
	"strings"
)

// Link is a link people see in a message: the words shown and where a
// click goes.
type Link struct {
	Text, URL string
}

// mrkdwnLink is mrkdwn's only link markup, <target> and <target|text>.
// Text that is not markup has its < escaped (&lt;), so every < left is
// markup.
var mrkdwnLink = regexp.MustCompile(`<([^<>|]*)(?:\|([^<>]*))?>`)

// Links returns the links in mrkdwn text as Slack shows them, each with
// the text it reads (the target itself when it has none). Mentions
// (<@U1>, <#C1|name>, <!here>) name people and channels and are left
// out. Slack also makes links of bare URLs and domain names, which read
// as where they go; they are left out too.
func Links(mrkdwn string) []Link {
	var out []Link
	for _, m := range mrkdwnLink.FindAllStringSubmatch(mrkdwn, -1) {
		target := m[1]
		if target == "" || strings.ContainsAny(target[:1], "@#!") {
			continue
		}
		text := m[2]
		if text == "" {
			text = target
		}
		out = append(out, Link{Text: unescape(text), URL: unescape(target)})
	}
	return out
}

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

func unescape(s string) string { return unescaper.Replace(s) }
