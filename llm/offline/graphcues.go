package offline

import (
	"slices"
	"strings"

	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// The router's reading of questions about the knowledge graph. A
// question is about the graph when it asks (who, which, what, where, how)
// about what the graph holds, in the graph's own words, and about nothing
// else:
//   - it names an entity of the graph, and uses a word of the graph's
//     schema (a label, relationship type or property key,
//     graphwalk.Index.Term: "Who supplies Chai?", "What is the unit price
//     of Côte de Blaye?") or no word of a topic of its own ("Who makes
//     Geitost?", "Where do we get Gravad lax from?", "Which section is
//     Tunnbröd in?");
//   - or it names no entity but uses the schema's words with another of
//     them or a name, and no word of a topic of its own ("Which products
//     have been discontinued?", "Which suppliers are based in Japan?").
// A word of a topic of its own is a noun the schema does not name ("How
// long is the warranty on the Beacon T1?", "Which customers are eligible
// for refunds?"). A question about the asker ("Who do I ask about a
// refund for Chai?") stays with the documents.

// mentioned returns the graph entities a question names, in full or by
// a short name (Index.Mentions). A one-word name written in lower case in
// a question that uses capitals is left out: in "Who should produce the
// cycle report?" the word is not the category Produce. A question typed
// all in lower case keeps every name.
func mentioned(q string, toks []words.Token, idx *graphwalk.Index) []*graphwalk.Entity {
	ents := idx.Mentions(q)
	if len(ents) == 0 || q == strings.ToLower(q) {
		return ents
	}
	var out []*graphwalk.Entity
	for _, e := range ents {
		norm := words.Norm(e.Name)
		capitalised := slices.ContainsFunc(toks, func(t words.Token) bool { return t.Lower == norm && t.Text != t.Lower })
		if strings.Contains(norm, " ") || capitalised {
			out = append(out, e)
		}
	}
	return out
}

// shape is what the router reads of a question's form.
type shape struct {
	lead string        // who, which, what, where or how: the question word it opens with; "" for none
	next []words.Token // the words after the question word, to the end of its sentence
	self bool          // the words after the question word are about the asker: I, me, my
}

// leadWords are the question words a shape can open with, by kind.
var leadWords = map[string]string{
	"who": "who", "whom": "who", "whose": "who", "whos": "who",
	"which": "which", "what": "what", "whats": "what", "list": "what", "name": "what",
	"where": "where", "wheres": "where", "how": "how",
}

// selfWords make a question about the asker, which is a matter for the
// documents: "Whose OK do I need…", "Where can I buy…".
var selfWords = setOf(`i me my mine myself im ive id`)

// shapeOf finds the sentence of q that opens with a question word, after
// words that name no topic ("So, who…", "Can you tell me which…"; see
// ownTopic), and returns its shape. Only the first such sentence counts:
// in "Our laptop broke. Who supplies the screens?" it is the second.
func shapeOf(q string) shape {
	for _, sentence := range strings.FieldsFunc(q, func(r rune) bool { return strings.ContainsRune(".?!;:\n", r) }) {
		toks := words.Tokens(sentence)
		for i, t := range toks {
			if kind, ok := leadWords[t.Lower]; ok {
				sh := shape{lead: kind, next: toks[i+1:]}
				for _, n := range sh.next {
					sh.self = sh.self || selfWords[n.Lower]
				}
				return sh
			}
			if !words.IsStop(t.Lower) && ownTopic(t.Lower) {
				break
			}
		}
	}
	return shape{}
}

// isGraph reports whether a question asks about the knowledge graph (see
// the comment at the top of the file), and says what about.
func isGraph(q, padded string, ents []*graphwalk.Entity, idx *graphwalk.Index) (string, bool) {
	sh := shapeOf(q)
	if sh.lead == "" || sh.self || hasAny(padded, generalPhrases) {
		return "", false
	}
	named := map[string]bool{}
	for _, e := range ents {
		for _, w := range strings.Fields(words.Norm(e.Name)) {
			named[w] = true
		}
	}
	var labels []string
	terms, names, content, topic := 0, 0, 0, false
	for i, t := range sh.next {
		w := t.Lower
		if words.IsStop(w) || named[w] {
			continue
		}
		content++
		term, isTerm := idx.Term(w)
		switch {
		case isTerm:
			terms++
			if l, ok := idx.Label(term); ok && !slices.Contains(labels, plural(strings.ToLower(l))) {
				labels = append(labels, plural(strings.ToLower(l)))
			}
		case (words.IsDigits(w) || isA(w, "integer")) && isLabel(idx, next(sh.next, i)): // "top 3 customers"
			names++
		case t.Text != w:
			names++
		case i == 0 && len(ents) > 0 && (sh.lead == "which" || sh.lead == "what"):
			// Right after which or what, a word names the kind of thing
			// asked for about an entity: "which company", "what beers".
		default:
			// Before a word of the schema, a noun says which one: "sales
			// revenue".
			_, modifier := idx.Term(next(sh.next, i))
			topic = topic || ownTopic(w) && !modifier
		}
	}
	// With no entity, a word of the schema needs another, or a name, or
	// to be all that is asked ("Who are our suppliers?").
	alone := len(labels) == 1 && terms == 1 && names == 0 && content == 1
	if len(ents) > 0 && topic && terms == 0 || len(ents) == 0 && (topic || terms == 0 || terms+names < 2 && !alone) {
		return "", false
	}
	ns := make([]string, len(ents))
	for i, e := range ents {
		ns[i] = e.Name
	}
	return graphReason(ns, labels), true
}

// isLabel reports whether w names a label of the graph, in any of its
// forms ("clients" names Customer).
func isLabel(idx *graphwalk.Index, w string) bool {
	term, _ := idx.Term(w)
	_, ok := idx.Label(term)
	return ok
}

// next returns the lowercase word after toks[i], or "".
func next(toks []words.Token, i int) string {
	if i+1 < len(toks) {
		return toks[i+1].Lower
	}
	return ""
}

// ownTopic reports whether a question word names a topic of its own: a
// word WordNet knows only as a noun ("warranty", "refund"), or does not
// know ("uptime"), not a verb, adjective or adverb that could state a
// relation or a property.
func ownTopic(w string) bool {
	return !can(w, lexicon.Verb) && !usually(w, lexicon.Adj, lexicon.Adv)
}

// plural writes a label in the plural: "supplier" → "suppliers",
// "Category" → "Categories", "Key" → "Keys", "Address" → "Addresses".
func plural(label string) string {
	switch {
	case strings.HasSuffix(label, "y") && !strings.HasSuffix(label, "ey"):
		return strings.TrimSuffix(label, "y") + "ies"
	case strings.HasSuffix(label, "s"):
		return label + "es"
	}
	return label + "s"
}
