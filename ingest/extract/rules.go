package extract

import (
	"context"
	"regexp"
	"strings"

	"github.com/switchboard/switchboard/internal/text"
)

// Rules is the offline extractor: it recognises a few explicit sentence
// patterns between capitalised names,
//
//	Acme Corp supplies Globex          Acme Corp -[SUPPLIES]-> Globex
//	Acme supplies chips to Globex      Acme -[SUPPLIES]-> Globex
//	Acme is a supplier of/to Globex    Acme -[SUPPLIES]-> Globex
//	Globex is a customer of Acme       Globex -[CUSTOMER_OF]-> Acme
//	Globex buys (chips) from Acme      Globex -[CUSTOMER_OF]-> Acme
//	Acme owns Initech                  Acme -[OWNS]-> Initech
//	Initech is owned by Acme           Acme -[OWNS]-> Initech
//	Acme acquired Initech              Acme -[ACQUIRED]-> Initech
//	Acme partners with Initech         Acme -[PARTNERS_WITH]-> Initech
//	Priya Shah works for/at Acme       Priya Shah (Person) -[WORKS_FOR]-> Acme
//
// and labels the names Organization unless the pattern says otherwise. It
// never guesses beyond these: a relationship stated any other way is
// missed rather than invented. Patterns whose relationship type or labels
// are not in Schema are not used.
type Rules struct {
	Schema Schema
}

var _ Extractor = Rules{}

// Name patterns: capitalised words, possibly joined by "&" or "of"
// ("Bramble & Finch Outfitters", "Bank of Ireland"), on one line.
const (
	word = `[\p{Lu}0-9][\p{L}0-9&'.-]*`
	name = `(` + word + `(?:[ \t]+(?:&|of)[ \t]+` + word + `|[ \t]+` + word + `){0,5})`
	sp   = `[ \t]+`
	some = `(?:[\p{L}0-9'-]+` + sp + `){0,4}?` // "chips and sensors "
	det  = `(?:(?:a|an|the|our|their|its|one)` + sp + `)?`
	adj  = `(?:[\p{Ll}-]+` + sp + `)?` // "major ", "long-time "
)

// rule is one pattern: groups 1 and 2 are the names; reverse swaps them.
// A line is only matched against the pattern when it contains one of
// hints (lower case), which keeps the regular expressions off the great
// majority of chat lines.
type rule struct {
	re                      *regexp.Regexp
	hints                   []string
	relation                string
	subjectLabel, objectLab string
	reverse                 bool
}

var rules = []rule{
	{re: regexp.MustCompile(name + sp + `(?:supplies|supply|supplied)` + sp + some + `to` + sp + name), hints: []string{"suppl"}, relation: "SUPPLIES"},
	{re: regexp.MustCompile(name + sp + `(?:supplies|supply|supplied)` + sp + det + name), hints: []string{"suppl"}, relation: "SUPPLIES"},
	{re: regexp.MustCompile(name + sp + `(?:is|was|has been)` + sp + det + adj + `(?:supplier|vendor)` + sp + `(?:of|to|for)` + sp + det + name), hints: []string{"supplier", "vendor"}, relation: "SUPPLIES"},
	{re: regexp.MustCompile(name + sp + `(?:is|was|became|has been)` + sp + det + adj + `(?:customer|client)` + sp + `of` + sp + det + name), hints: []string{"customer", "client"}, relation: "CUSTOMER_OF"},
	{re: regexp.MustCompile(name + sp + `(?:buys|bought|purchases|purchased)` + sp + some + `from` + sp + name), hints: []string{"from"}, relation: "CUSTOMER_OF"},
	{re: regexp.MustCompile(name + sp + `(?:is|was)` + sp + `(?:owned|acquired)` + sp + `by` + sp + name), hints: []string{" by "}, relation: "OWNS", reverse: true},
	{re: regexp.MustCompile(name + sp + `(?:owns|owned)` + sp + det + name), hints: []string{"own"}, relation: "OWNS"},
	{re: regexp.MustCompile(name + sp + `(?:acquired|acquires|bought)` + sp + det + name), hints: []string{"acquire", "bought"}, relation: "ACQUIRED"},
	{re: regexp.MustCompile(name + sp + `(?:partners|partnered|is partnering)` + sp + `with` + sp + name), hints: []string{"partner"}, relation: "PARTNERS_WITH"},
	{re: regexp.MustCompile(name + sp + `(?:works|worked|is working)` + sp + `(?:for|at)` + sp + name), hints: []string{"work"}, relation: "WORKS_FOR", subjectLabel: "Person"},
}

// openers are capitalised words that start sentences without being part
// of a name: "Yes Acme supplies Globex" is about Acme.
var openers = map[string]bool{
	"yes": true, "no": true, "so": true, "and": true, "but": true, "also": true, "now": true, "then": true,
	"well": true, "ok": true, "okay": true, "actually": true, "fyi": true, "btw": true, "note": true,
	"i": true, "we": true, "they": true, "he": true, "she": true, "it": true, "hi": true, "hey": true,
	"today": true, "yesterday": true, "apparently": true, "confirmed": true, "update": true, "since": true,
	"as": true, "if": true, "when": true, "because": true, "our": true, "their": true, "reminder": true,
}

// Extract returns the facts the patterns find in each passage, in order.
func (r Rules) Extract(ctx context.Context, ps []Passage) ([]Fact, error) {
	var out []Fact
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, line := range strings.Split(text.ClipBytes(p.Text, maxPassage), "\n") {
			out = append(out, r.line(line, p.Origin)...)
		}
	}
	return out, nil
}

// maxPassage bounds the text the patterns scan, in bytes.
const maxPassage = 16 << 10

func (r Rules) line(line, origin string) []Fact {
	var out []Fact
	lower := strings.ToLower(line)
	for _, ru := range rules {
		if !containsAny(lower, ru.hints) {
			continue
		}
		rel, ok := r.Schema.relation(ru.relation)
		if !ok {
			continue
		}
		sl, ok1 := r.Schema.label(firstOf(ru.subjectLabel, "Organization"))
		ol, ok2 := r.Schema.label(firstOf(ru.objectLab, "Organization"))
		if !ok1 || !ok2 {
			continue
		}
		for _, m := range ru.re.FindAllStringSubmatch(line, 8) {
			// A name does not run across the end of a sentence: "Done.
			// Acme supplies Globex. Then…" is about Acme and Globex.
			a := cleanName(trimOpeners(afterLast(m[1], ". ")))
			b, _, _ := strings.Cut(m[2], ". ")
			b = cleanName(b)
			if NormalizeName(a) == "" || NormalizeName(b) == "" {
				continue
			}
			f := Fact{Subject: Entity{sl, a}, Relation: rel, Object: Entity{ol, b}, Origin: origin}
			if ru.reverse {
				f.Subject, f.Object = Entity{sl, b}, Entity{ol, a}
			}
			out = append(out, f)
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// trimOpeners drops sentence openers from the front of a name.
func trimOpeners(s string) string {
	f := strings.Fields(s)
	for len(f) > 0 && openers[strings.ToLower(strings.Trim(f[0], ".,"))] {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// afterLast returns what follows the last sep in s, or s.
func afterLast(s, sep string) string {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return s
}

func firstOf(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
