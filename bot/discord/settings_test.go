package discord

import (
	"fmt"
	"testing"

	"github.com/switchboard/switchboard/channels"
)

func TestExpertIDs(t *testing.T) {
	for in, want := range map[string]string{
		"<@111><@!222>, <@&333> 444": "[111 222 &333 444]",
		"<@>, <@&>, ,":               "[]",
		"444 444":                    "[444]",
	} {
		if got := fmt.Sprint(expertIDs(in)); got != want {
			t.Errorf("expertIDs(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzParseSettingsOptions: whatever Discord sends as /switchboard
// settings, the parser does not panic, settings it accepts pass their
// check and stay the channel's, and it changes nothing it says it did not.
func FuzzParseSettingsOptions(f *testing.F) {
	f.Add([]byte(`{"type":2,"data":{"name":"switchboard","options":[{"name":"settings","type":1,"options":[{"name":"sources","type":3,"value":"handbook/docs/hr/, slack:C42"},{"name":"replies","type":3,"value":"all"},{"name":"private","type":5,"value":true},{"name":"experts","type":3,"value":"<@1><@&2>"}]}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"switchboard","options":[{"name":"settings","type":1}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"switchboard","options":[{"name":"settings","type":1,"options":[{"name":"sources","type":3,"value":"all"},{"name":"experts","type":3,"value":"none"}]}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"switchboard","options":[{"name":"settings","type":1,"options":[{"name":"replies","type":3,"value":"sometimes"},{"name":"private","type":5,"value":"yes"},null]}]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"switchboard","options":[null]}}`))
	f.Add([]byte(`{"type":2,"data":{"name":"ask","options":[{"name":"question","type":3,"value":"hi"}]}}`))
	cur := channels.Settings{Channel: "C1", Sources: []string{"a/"}, Replies: channels.RepliesAnyone, Experts: []string{"9"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		ia, err := parseInteraction(body)
		if err != nil {
			return
		}
		s, changed, err := parseSettingsOptions(ia, cur)
		switch {
		case err != nil && fmt.Sprint(s) != fmt.Sprint(cur):
			t.Errorf("refused (%v), yet the settings became %+v", err, s)
		case err == nil && s.Check() != nil:
			t.Errorf("accepted %+v, which fails its check: %v", s, s.Check())
		case s.Channel != cur.Channel:
			t.Errorf("the settings moved to channel %q", s.Channel)
		case !changed && fmt.Sprint(s) != fmt.Sprint(cur):
			t.Errorf("no change reported, yet the settings became %+v", s)
		}
	})
}
