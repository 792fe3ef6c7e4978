package neo4j

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/switchboard/switchboard/internal/text"
)

// Bounds on how much of one value is shown: a generated query may return
// a 10 MB property or a list of every node, and the generator only needs
// enough to cite.
const (
	maxValueRunes = 300
	maxListItems  = 25
	maxMapKeys    = 12
)

// formatValue renders a value the driver returned as short readable text:
// nodes by name and label, relationships by type, paths as chains, lists
// as [a, b], maps as {k: v} in key order. Nothing here can fail: a value
// of a type it does not know is printed with %v.
func formatValue(v any) string {
	return text.Clip(formatAny(v, 0), maxValueRunes)
}

func formatAny(v any, depth int) string {
	if depth > 4 {
		return "…"
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return text.Clip(x, maxValueRunes)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []byte:
		return fmt.Sprintf("<%d bytes>", len(x))
	case time.Time:
		return x.Format(time.RFC3339)
	case dbtype.Node:
		return nodeFromDB(x).Ref()
	case dbtype.Relationship:
		return ":" + x.Type
	case dbtype.Path:
		return formatPath(x)
	case []any:
		parts := make([]string, 0, min(len(x), maxListItems)+1)
		for i, e := range x {
			if i == maxListItems {
				parts = append(parts, fmt.Sprintf("… %d more", len(x)-i))
				break
			}
			parts = append(parts, formatAny(e, depth+1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, min(len(keys), maxMapKeys)+1)
		for i, k := range keys {
			if i == maxMapKeys {
				parts = append(parts, fmt.Sprintf("… %d more", len(keys)-i))
				break
			}
			parts = append(parts, k+": "+formatAny(x[k], depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case fmt.Stringer: // dates, times, durations, points
		return x.String()
	}
	return fmt.Sprintf("%v", v)
}

// formatPath renders a path as "Acme (Supplier) -[SUPPLIES]-> Globex
// (Customer)", with arrows pointing the way each relationship does.
func formatPath(p dbtype.Path) string {
	if len(p.Nodes) == 0 {
		return "()"
	}
	var b strings.Builder
	b.WriteString(nodeFromDB(p.Nodes[0]).Ref())
	for i, r := range p.Relationships {
		if i+1 >= len(p.Nodes) {
			break
		}
		next := p.Nodes[i+1]
		if r.StartElementId == next.ElementId {
			b.WriteString(" <-[" + r.Type + "]- ")
		} else {
			b.WriteString(" -[" + r.Type + "]-> ")
		}
		b.WriteString(nodeFromDB(next).Ref())
	}
	return b.String()
}

// propString is a property value as the kb's string props hold them.
func propString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return formatAny(v, 0)
}
