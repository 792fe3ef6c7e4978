package extract

import (
	"fmt"
	"regexp"
	"strings"
)

// Schema is what extraction may produce: the allowed node labels and
// relationship types. A model is held to it, and facts outside it are
// dropped, so that the graph keeps a vocabulary the graph route (and a
// model writing Cypher against it) can rely on.
type Schema struct {
	Labels    []string // e.g. Organization, Person
	Relations []string // e.g. SUPPLIES, CUSTOMER_OF
}

// Default labels and relationship types (GRAPH_LABELS, GRAPH_RELATIONS).
const (
	DefaultLabels    = "Organization,Person,Product,System,Team,Project,Location"
	DefaultRelations = "SUPPLIES,CUSTOMER_OF,OWNS,PARTNERS_WITH,WORKS_FOR,MANAGES,REPORTS_TO,USES,DEPENDS_ON,ACQUIRED,PART_OF,LOCATED_IN"
)

// DefaultSchema is ParseSchema of the defaults.
func DefaultSchema() Schema {
	s, _ := ParseSchema(DefaultLabels, DefaultRelations) // constants: cannot fail
	return s
}

var (
	labelRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	relationRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// ParseSchema reads comma-separated labels and relationship types. Labels
// are identifiers ("Organization"); relationship types are normalised to
// upper case with underscores ("customer of" → CUSTOMER_OF). Empty lists
// and invalid names are errors naming the culprit.
func ParseSchema(labels, relations string) (Schema, error) {
	var s Schema
	seen := map[string]bool{}
	for _, l := range strings.Split(labels, ",") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !labelRE.MatchString(l) || strings.EqualFold(l, "Entity") {
			return Schema{}, fmt.Errorf("label %q: use letters, digits and underscores, starting with a letter (and not Entity)", l)
		}
		if !seen[strings.ToLower(l)] {
			seen[strings.ToLower(l)] = true
			s.Labels = append(s.Labels, l)
		}
	}
	for _, r := range strings.Split(relations, ",") {
		r = relationType(r)
		if r == "" {
			continue
		}
		if !relationRE.MatchString(r) {
			return Schema{}, fmt.Errorf("relationship type %q: use letters, digits and underscores, starting with a letter", r)
		}
		if !seen["rel:"+r] {
			seen["rel:"+r] = true
			s.Relations = append(s.Relations, r)
		}
	}
	if len(s.Labels) == 0 {
		return Schema{}, fmt.Errorf("no labels")
	}
	if len(s.Relations) == 0 {
		return Schema{}, fmt.Errorf("no relationship types")
	}
	return s, nil
}

// relationType is the stored form of a relationship type, as the graph
// stores write it: "customer of" → CUSTOMER_OF.
func relationType(t string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(strings.TrimSpace(t), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}), "_"))
}

// label returns the schema's spelling of l, and whether it is allowed.
func (s Schema) label(l string) (string, bool) {
	for _, x := range s.Labels {
		if strings.EqualFold(x, strings.TrimSpace(l)) {
			return x, true
		}
	}
	return "", false
}

// relation returns the schema's spelling of r, and whether it is allowed.
func (s Schema) relation(r string) (string, bool) {
	r = relationType(r)
	for _, x := range s.Relations {
		if x == r {
			return x, true
		}
	}
	return "", false
}
