// Package extract finds entities and relationships in ingested text and
// writes them to the knowledge graph, each with the passage it came from,
// so that a graph answer can cite the message or chunk behind a fact.
//
// Two extractors find facts: Model asks a language model for structured
// output restricted to a Schema of allowed labels and relationship types;
// Rules, the offline fallback, recognises a few explicit sentence patterns
// ("Acme Corp supplies Globex", "Globex is a customer of Initech", "Acme
// owns Initech"). Graph.Add resolves duplicates by normalised name (a
// node's id is its label and normalised name, so "Acme Corp." and "acme
// corp" are one node) and writes them through a GraphWriter.
package extract

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/switchboard/switchboard/kb"
)

// Passage is a piece of text facts may be stated in, and where it came
// from: the Origin becomes the Source of the nodes and the Origin of the
// edges found in it (a message's permalink, a chunk's key).
type Passage struct {
	Text   string
	Origin string
}

// Entity is a thing a fact is about.
type Entity struct {
	Label string // one of the Schema's labels
	Name  string // as written
}

// Fact is one relationship stated in a passage: Subject -[Relation]-> Object.
type Fact struct {
	Subject  Entity
	Relation string // one of the Schema's relationship types
	Object   Entity
	Origin   string // the passage's Origin
}

// Extractor finds the facts stated in passages. Implementations: Model
// (a language model) and Rules (patterns, offline).
type Extractor interface {
	Extract(ctx context.Context, ps []Passage) ([]Fact, error)
}

// GraphWriter is what Graph needs from a graph store (SQLite, Neo4j).
type GraphWriter interface {
	UpsertNodes(ctx context.Context, nodes []kb.Node) error
	UpsertEdges(ctx context.Context, edges []kb.Edge) error
}

// Forgetter is what a graph store offers to delete facts by where they
// came from (sqlite.GraphStore, neo4j.Graph).
type Forgetter interface {
	ForgetOrigins(ctx context.Context, origins []string) (int, error)
}

// Graph extracts facts and writes them to a graph store.
type Graph struct {
	Extractor Extractor
	Writer    GraphWriter
}

// Result counts what Graph.Add wrote.
type Result struct {
	Entities  int // distinct nodes written
	Relations int // distinct edges written
}

// Add extracts the facts stated in ps and writes their entities, then
// their relationships. Writing is idempotent: a fact extracted again
// updates its node and edge (and their origin) rather than adding another.
func (g *Graph) Add(ctx context.Context, ps []Passage) (Result, error) {
	if g == nil || g.Extractor == nil || g.Writer == nil || len(ps) == 0 {
		return Result{}, nil
	}
	facts, err := g.Extractor.Extract(ctx, ps)
	if err != nil {
		return Result{}, fmt.Errorf("extract: %w", err)
	}
	nodes, edges := Resolve(facts)
	if len(edges) == 0 {
		return Result{}, nil
	}
	if err := g.Writer.UpsertNodes(ctx, nodes); err != nil {
		return Result{}, fmt.Errorf("extract: write %d entities: %w", len(nodes), err)
	}
	if err := g.Writer.UpsertEdges(ctx, edges); err != nil {
		return Result{}, fmt.Errorf("extract: write %d relations: %w", len(edges), err)
	}
	return Result{Entities: len(nodes), Relations: len(edges)}, nil
}

// Forget deletes the relationships that came from origins (and entities
// left without any), when the Writer is a Forgetter; it returns how many
// relationships went. A changed message's facts are forgotten before they
// are extracted again, and a deleted message's for good.
func (g *Graph) Forget(ctx context.Context, origins []string) (int, error) {
	if g == nil || len(origins) == 0 {
		return 0, nil
	}
	f, ok := g.Writer.(Forgetter)
	if !ok {
		return 0, nil
	}
	n, err := f.ForgetOrigins(ctx, origins)
	if err != nil {
		return 0, fmt.Errorf("extract: %w", err)
	}
	return n, nil
}

// Resolve turns facts into graph nodes and edges, merging entities with
// the same label and normalised name into one node (its id is NodeID) and
// repeated facts into one edge. The first spelling of a name wins; a
// node's Source and an edge's Origin are those of the first fact that
// named them.
func Resolve(facts []Fact) ([]kb.Node, []kb.Edge) {
	var nodes []kb.Node
	var edges []kb.Edge
	seenNode := map[string]bool{}
	seenEdge := map[string]bool{}
	node := func(e Entity, origin string) (string, bool) {
		id := NodeID(e.Label, e.Name)
		if id == "" {
			return "", false
		}
		if !seenNode[id] {
			seenNode[id] = true
			nodes = append(nodes, kb.Node{ID: id, Label: e.Label, Name: cleanName(e.Name), Source: origin})
		}
		return id, true
	}
	for _, f := range facts {
		if f.Relation == "" {
			continue
		}
		src, ok1 := node(f.Subject, f.Origin)
		dst, ok2 := node(f.Object, f.Origin)
		if !ok1 || !ok2 || src == dst {
			continue
		}
		key := src + "\x00" + f.Relation + "\x00" + dst
		if seenEdge[key] {
			continue
		}
		seenEdge[key] = true
		edges = append(edges, kb.Edge{Source: src, Type: f.Relation, Target: dst, Origin: f.Origin})
	}
	// Only entities that take part in a relationship are kept: a name
	// alone says nothing the documents do not.
	used := map[string]bool{}
	for _, e := range edges {
		used[e.Source], used[e.Target] = true, true
	}
	kept := nodes[:0]
	for _, n := range nodes {
		if used[n.ID] {
			kept = append(kept, n)
		}
	}
	return kept, edges
}

// NodeID is the id of an entity: its label and normalised name,
// "organization:acme-corp". It is "" when the name has no letters or
// digits.
func NodeID(label, name string) string {
	n := NormalizeName(name)
	if n == "" {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(label)) + ":" + strings.ReplaceAll(n, " ", "-")
}

// NormalizeName is how names are compared: lower case, with punctuation
// and runs of spaces collapsed to single spaces and a leading "the"
// dropped, so "The Acme Corp." and "acme corp" are the same name.
func NormalizeName(name string) string {
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&'
	})
	if len(f) > 1 && f[0] == "the" {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// maxName bounds an entity name: anything longer is a sentence, not a name.
const maxName = 120

var spaces = regexp.MustCompile(`\s+`)

// cleanName is a name as stored: one line, trimmed of punctuation around it.
func cleanName(s string) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) && r != '&' && r != ')' })
	if len([]rune(s)) > maxName {
		s = string([]rune(s)[:maxName])
	}
	return s
}
