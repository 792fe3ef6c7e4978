package offline

import (
	"strings"

	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/kb/words"
)

// The router's reading of relational questions that share no relation
// word with the graph's edges: "Who makes Chai?", "Where do we get Tofu
// from?", "Which company is behind Ikura?". What makes such a question
// relational is its form together with a name the graph knows: it opens
// by asking for a party (who, which company, which customers), for what
// passes between parties (what X buys, gets from us), for where a thing
// comes from, for the category a thing is filed under, or for a property
// the graph keeps (revenue, price, country). A question that merely
// mentions a product ("How long is the warranty on the Beacon T1?") has
// none of these forms, and one about the asker or a document topic ("Who
// do I ask about a refund for the Lumen Gateway?") stays with the
// documents.

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
		if strings.Contains(norm, " ") || capitalised(toks, norm) {
			out = append(out, e)
		}
	}
	return out
}

// capitalised reports whether the word w is written with a capital in
// toks.
func capitalised(toks []words.Token, w string) bool {
	for _, t := range toks {
		if t.Lower == w && t.Text != t.Lower {
			return true
		}
	}
	return false
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

// leadFillers may come before the question word: "So, who…", "Can you
// tell me which…", "I'd like to know where…".
var leadFillers = setOf(`and so then but or ok okay hey hi hello please can could would will you tell me us
let know do i id want wanted need to like just quick question also now actually sorry btw show give
find out`)

// selfWords make a question about the asker, which is a matter for the
// documents: "Whose OK do I need…", "Where can I buy…".
var selfWords = setOf(`i me my mine myself im ive id`)

// shapeOf finds the sentence of q that opens with a question word, after
// fillers, and returns its shape. Only the first such sentence counts: in
// "Our laptop broke. Who supplies the screens?" it is the second.
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
			if !leadFillers[t.Lower] {
				break
			}
		}
	}
	return shape{}
}

// Vocabulary of relational questions, by stem unless said otherwise.
var (
	// partyNouns, right after which/what, ask for a party: "Which
	// company is behind Ikura?"
	partyNouns = stemsOf(`company companies firm business vendor supplier customer client partner
manufacturer maker producer brand provider distributor people person organisation organization
employee staff colleague manager rep representative team department`)
	// transferVerbs state that something passes between parties: "What
	// has Lazy K bought?", "Who hosts Brightline Cloud?". Lowercase forms.
	transferVerbs = setOf(`buy buys buying bought purchase purchases purchased purchasing order orders
ordered ordering supply supplies supplied supplying sell sells selling sold make makes making made
manufacture manufactures manufactured produce produces produced ship ships shipped deliver delivers
delivered distribute distributes distributed host hosts hosted hosting pay pays paying paid use uses
used using`)
	// receiveVerbs do so only with "from": "What do we get from
	// Norrland?", not "What do customers get with Brightline Cloud?".
	receiveVerbs = setOf(`get gets getting got gotten receive receives received take takes took have has had`)
	// sourceVerbs, after "where", ask where a thing comes from.
	sourceVerbs = setOf(`get gets got buy buys bought source sources sourced come comes make makes made
manufacture manufactured produce produced order ordered supply supplied purchase purchased ship
shipped import imported`)
	// classPhrases ask what a thing is filed under: "What kind of food is
	// Konbu filed under?"
	classPhrases = []string{
		"kind of", "type of", "sort of", "filed under", "listed under", "part of", "belong to",
		"belongs to", "fall under", "falls under", "come under", "comes under", "categor*", "classif*",
	}
	// attributeWords name properties a graph keeps of its entities:
	// "What is the revenue of Mapleridge Health?", "Where is Kestrel
	// based?". Lowercase forms.
	attributeWords = setOf(`revenue revenues turnover sales price prices priced cost costs title role job
country region tier contact phone email address city based located headquartered headquarters stock
units discontinued`)
	// superlatives rank a label's entities: "Which employee has the
	// highest sales?" Lowercase forms.
	superlatives = setOf(`highest most largest biggest top best lowest fewest least smallest cheapest`)
	// rankWords are the ranking words of topN that cannot mean
	// "important", so they rank any label: "top 3 products".
	rankWords = setOf(`top biggest largest highest best`)
	// docTopics, with docWords, mark a question about what the documents
	// govern, however relational its form: "Who approves a refund for
	// Halvorsen Freight?"
	docTopics = stemsOf(`warranty guarantee refund return repair replace replacement manual instruction
install setup configure reset troubleshoot firmware sla uptime outage downtime discount allowance
limit cap maximum minimum deadline notice approve approval retention retain delete backup privacy
gdpr compliance incident breach vulnerability expense reimburse travel leave vacation holiday
benefit salary bonus insurance pension password`)
)

// entityCue reports whether a question that names a known entity has the
// form of a relational question (see the comment at the top of the file).
func entityCue(sh shape, toks []words.Token, padded string, idx *graphwalk.Index) bool {
	if sh.lead == "" || sh.self || docTopic(toks) || hasAny(padded, generalPhrases) {
		return false
	}
	switch sh.lead {
	case "who": // "Who makes Chai?", "Who looks after the Tallis account?"
		return true
	case "which", "what":
		return asksParty(sh.next, idx) || hasAny(padded, classPhrases) || transfers(toks) || attribute(toks)
	case "where": // "Where do we get Tofu from?", "Where is Kestrel based?"
		return anyLower(toks, sourceVerbs) || attribute(toks)
	case "how": // "How many units of Chai has Alfreds bought?", "How much does the Lumen Gateway cost?"
		return len(sh.next) > 0 && (sh.next[0].Lower == "many" || sh.next[0].Lower == "much") &&
			(transfers(toks) || attribute(toks))
	}
	return false
}

// labelCue reports whether a question that names no entity asks which
// entities of a label have a property: "Which products have been
// discontinued?", "Which employee has the highest sales?"
func labelCue(sh shape, toks []words.Token, idx *graphwalk.Index) bool {
	if (sh.lead != "which" && sh.lead != "what") || sh.self || docTopic(toks) {
		return false
	}
	if !namesLabel(sh.next, idx) {
		return false
	}
	return attribute(toks) || anyLower(toks, superlatives)
}

// asksParty reports whether the words right after which/what ask for a
// party or for entities of a label: "which company", "what category",
// "which of the customers".
func asksParty(next []words.Token, idx *graphwalk.Index) bool {
	for _, t := range next[:min(len(next), 3)] {
		if partyNouns[t.Stem] || relationNouns[t.Stem] {
			return true
		}
	}
	return namesLabel(next, idx)
}

// namesLabel reports whether one of the first three words names a label
// of the graph ("customers" → Customer).
func namesLabel(next []words.Token, idx *graphwalk.Index) bool {
	for _, t := range next[:min(len(next), 3)] {
		if _, ok := idx.Label(t.Lower); ok {
			return true
		}
	}
	return false
}

// transfers reports whether a question says that something passes
// between parties: a transfer verb, or a receiving verb with "from".
func transfers(toks []words.Token) bool {
	from := false
	for _, t := range toks {
		from = from || t.Lower == "from"
	}
	return anyLower(toks, transferVerbs) || (from && anyLower(toks, receiveVerbs))
}

func attribute(toks []words.Token) bool { return anyLower(toks, attributeWords) }

// docTopic reports whether a question names something the documents
// govern: a policy, a warranty, a refund, an allowance. "How", a document
// word for the older rules ("how do I…"), is a question word here.
func docTopic(toks []words.Token) bool {
	for _, t := range toks {
		if docTopics[t.Stem] || (docWords[t.Lower] && t.Lower != "how") {
			return true
		}
	}
	return false
}

func anyLower(toks []words.Token, set map[string]bool) bool {
	for _, t := range toks {
		if set[t.Lower] {
			return true
		}
	}
	return false
}
