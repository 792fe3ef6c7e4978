package graphwalk

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/internal/text"
)

// maxPropsShown bounds the properties printed per node or edge.
const maxPropsShown = 8

// nodeLine is a node with its properties: "Globex (Customer) {revenue: 5}".
func nodeLine(n Node) string {
	if p := formatProps(n.Props, maxPropsShown); p != "" {
		return n.Ref() + " " + p
	}
	return n.Ref()
}

// formatProps renders properties as "{k: v, ...}" in key order, at most
// n of them, each value cut to a readable length.
func formatProps(p map[string]string, n int) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + text.Clip(p[k], 80)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func writeFacts(b *strings.Builder, heading string, facts []Fact) {
	if len(facts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", heading)
	for _, f := range facts {
		b.WriteString(f.String() + "\n")
	}
}

// writeNeighbours lists the properties of the entities the facts reach,
// other than skip, so that "Globex's revenue" is in the document too.
func writeNeighbours(b *strings.Builder, facts []Fact, skip map[string]bool) {
	var lines []string
	for _, f := range facts {
		for _, n := range []Node{f.Src, f.Dst} {
			if skip[n.ID] || len(n.Props) == 0 || len(lines) == maxNeighbours {
				continue
			}
			skip[n.ID] = true
			lines = append(lines, nodeLine(n))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nRelated entities:\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
}

// factMetadata records how many facts a document holds and where they came
// from, for the presenter's source list.
func factMetadata(facts []Fact) map[string]string {
	md := map[string]string{"facts": strconv.Itoa(len(facts))}
	var origins []string
	seen := map[string]bool{}
	for _, f := range facts {
		if f.Origin != "" && !seen[f.Origin] && len(origins) < 5 {
			seen[f.Origin] = true
			origins = append(origins, f.Origin)
		}
	}
	if len(origins) > 0 {
		md["origins"] = strings.Join(origins, ", ")
	}
	return md
}
