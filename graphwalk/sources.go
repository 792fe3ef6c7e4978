package graphwalk

import "strings"

// Facts extracted from chat carry the permalink of the message that
// states them as their origin. A graph answer cites that message: the
// fact's line names it, and a neighbourhood whose facts all come from one
// message links to it as its location, which the chat adapters show as a
// link. Origins that are not links (a CSV file's name) stay out of the
// text, as before.

// isLink reports whether an origin is a URL people can open.
func isLink(s string) bool {
	return (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) && !strings.ContainsAny(s, " \n\t")
}

// soleLink returns the one link all the facts' linked origins share, or
// "" when there is none or more than one.
func soleLink(facts []Fact) string {
	link := ""
	for _, f := range facts {
		if !isLink(f.Origin) {
			continue
		}
		if link != "" && f.Origin != link {
			return ""
		}
		link = f.Origin
	}
	return link
}
