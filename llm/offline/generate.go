package offline

import (
	"cmp"
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/internal/cite"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
)

// Fixed sentences of the generator. Check knows them and does not treat
// them as claims about the sources.
const (
	noDirectAnswer = "I found related documents but no sentence that answers this directly"
	noDocuments    = "I have no documents to answer from."
	graphLeadIn    = "From the knowledge graph:"
)

// Generator limits: an answer quotes a few sentences and a short list.
const (
	maxQuoted    = 4   // sentences quoted from text documents
	minQuoted    = 2   // quoted when there are that many candidates at all
	maxRows      = 10  // graph rows listed
	maxQuoteLen  = 400 // runes of one quoted sentence
	maxRowLen    = 300 // runes of one graph row
	maxRowsInDoc = 200 // lines read from one graph document
)

// candidate is a sentence of a text document that may be quoted.
type candidate struct {
	doc, pos int // document index in req.Docs, sentence index in it
	text     string
	score    float64
}

// Generate answers by quoting the sources: it is extractive, so every
// sentence it writes is a sentence of a document, cited [n]. The best two
// to four sentences of the text documents (scoreSentences, pickSentences)
// are quoted in document order, then the graph documents' rows that bear
// on the question (graphRows), led by the names asked for (graphLead).
// Sentences and rows that contain a claim of req.Unsupported are left out.
func (b *Brain) Generate(ctx context.Context, req agent.GenerateRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	docs := req.Docs[:min(len(req.Docs), maxDocs)]
	if len(docs) == 0 {
		return noDocuments, nil
	}
	kws := keywords(clip(req.Question, maxQuestion))
	focus := focusOf(req.Question)
	excluded := normaliseClaims(req.Unsupported)

	var cands []candidate
	hasGraph := false
	kws = rarity(kws, docs)
	kws = sceneHalf(kws, req.Question)
	for i, d := range docs {
		if d.Route == agent.RouteGraph {
			hasGraph = true
			continue
		}
		cands = append(cands, scoreSentences(i, d, kws, focus, excluded)...)
	}
	var rows []string
	if hasGraph {
		ents, err := b.entities(ctx, req.Question)
		if err != nil {
			return "", err
		}
		rows = graphRows(docs, kws, ents, excluded)
	}

	var out []string
	if quoted := pickSentences(cands); len(quoted) > 0 {
		var parts []string
		for _, c := range quoted {
			parts = append(parts, citeSentence(c.text, c.doc+1))
		}
		out = append(out, strings.Join(parts, " "))
	}
	if len(rows) > 0 {
		// The answer first (the suppliers' names), then the paths that
		// show it.
		if lead := graphLead(req.Question, rows); lead != "" {
			out = append(out, lead)
		}
		out = append(out, graphLeadIn+"\n"+strings.Join(rows, "\n"))
	}
	if len(out) == 0 {
		return noDirectAnswer + " " + citeAll(len(docs)) + ".", nil
	}
	return strings.Join(out, "\n\n"), nil
}

// rarity weighs each keyword by how few of the documents' sentences
// hold it: a word that every retrieved sentence has ("map" in the
// section on maps) tells the sentences apart less than one that few
// have ("assign"). This is the inverse document frequency of search
// engines, taken over the sentences at hand rather than a corpus, so it
// needs no vocabulary of its own.
func rarity(kws []keyword, docs []agent.Document) []keyword {
	var sets []map[string]bool
	for _, d := range docs {
		if d.Route == agent.RouteGraph {
			continue
		}
		for _, ds := range documentSentences(d) {
			sets = append(sets, docStemSet(ds.text))
		}
	}
	if len(sets) < 2 {
		return kws
	}
	out := slices.Clone(kws)
	n := float64(len(sets))
	for i, k := range out {
		df := 0.0
		for _, set := range sets {
			if ok, _ := matchIn(k, set); ok {
				df++
			}
		}
		out[i].weight *= 1 + math.Log((n+1)/(df+1))
	}
	return out
}

// sceneHalf halves the weight of the words that only set the scene
// (asking): in "oops, I wrote into a map I never made with make() — what
// happens when you assign to a nil map?" the answer is about assigning to
// a nil map, not about make.
func sceneHalf(kws []keyword, question string) []keyword {
	all, asks := asking(question)
	if len(asks) == len(all) {
		return kws
	}
	set := stemSet(strings.Join(asks, " "))
	out := slices.Clone(kws)
	for i, k := range out {
		if ok, _ := matchIn(k, set); !ok {
			out[i].weight *= 0.5
		}
	}
	return out
}

// scoreSentences returns the sentences of a text document that share at
// least one topic keyword with the question, scored: the share of the
// topic keywords' weight they contain (the words that only shape the
// question, "how long", "limit", do not count), with the bonuses and
// penalties below.
func scoreSentences(doc int, d agent.Document, kws []keyword, focus questionFocus, excluded []string) []candidate {
	var total float64
	for _, k := range kws {
		if !k.frame || k.number {
			total += k.weight
		}
	}
	if total == 0 {
		return nil
	}
	var out []candidate
	titleSet := docStemSet(clip(d.Title, 500))
	prevPara, prevPos, prevScore := -1, 0, 0.0 // the last sentence scored
	// intro is the score of the last sentence that ends in a colon, while
	// the list it opens lasts: "Their values are:" is completed by the
	// items that follow it, which need not repeat its words.
	intro, itemPara := 0.0, -1
	for _, ds := range documentSentences(d) {
		s := ds.text
		if strings.HasSuffix(s, "?") || len(words.Tokens(s)) < 3 || isExcluded(s, excluded) || ds.tail {
			continue
		}
		follows := ds.para == prevPara && ds.pos == prevPos+1 && continuesPrevious(s)
		inherited := prevScore
		headingSet := titleSet
		if ds.heading != "" {
			headingSet = docStemSet(ds.heading)
		}
		set, own := docStemSet(s), ownMentions(s, titleSet) // own: without "this policy"
		got, inHeading := 0.0, false
		for _, k := range kws {
			kset := own
			if k.frame {
				kset = set
			}
			if share, _ := matchShare(k, kset); !k.frame || k.number {
				got += share * k.weight
			}
			if ok, _ := matchIn(k, headingSet); ok && !k.frame {
				inHeading = true
			}
		}
		prevPara, prevPos, prevScore = ds.para, ds.pos, 0
		// An item's first sentence completes the opening sentence; the
		// item's further sentences only continue it.
		completes := ds.item && intro > 0
		if !ds.item && ds.para != itemPara {
			intro = 0
		}
		if ds.item {
			itemPara = ds.para
		}
		if got == 0 && !completes {
			continue
		}
		score := got/total + 0.1*max(0, 1-float64(ds.pos)/50)
		if inHeading {
			score += 0.15
		}
		if focus.kind != "" && focus.states(newAnswerPlace(s)) {
			score += 0.1 // it states the kind of thing asked for: an amount, a time, a name
		}
		if missingName(focus, set, headingSet, titleSet) {
			// Names locate the answer: a sentence under "Oregon" does not
			// answer a question about New Jersey.
			score *= 0.8
		}
		prevScore = score
		if follows {
			// "Together, these programs provide up to 24 weeks": it
			// speaks of what the sentence before it named.
			score = max(score, continuedShare*inherited)
		}
		if completes {
			score = max(score, continuedShare*intro) + itemShare*score
		}
		if strings.HasSuffix(s, ":") {
			intro = score
		}
		out = append(out, candidate{doc: doc, pos: ds.pos, text: clipQuote(s, maxQuoteLen), score: score})
	}
	return out
}

// ownMentions returns the stem set of a sentence without the words with
// which a document speaks of itself: a generic word or a word of its title
// after "this" or "these" ("This policy explains…" in the Refund Policy,
// "these guidelines"). They say nothing of the question's topic, so they
// do not count as the question's "policy".
func ownMentions(s string, title map[string]bool) map[string]bool {
	toks := words.Tokens(s)
	return stemsOf(toks, func(i int) bool {
		return i > 0 && (toks[i-1].Lower == "this" || toks[i-1].Lower == "these") && (vague(toks[i].Lower) || title[toks[i].Stem])
	})
}

// continuedShare is what a sentence that continues the one before it
// ("These…", "It…") may take of that sentence's score.
const continuedShare = 0.9

// itemShare is how much a list item's own score adds to what it inherits
// from the sentence that opens its list, so that the item that matches the
// question comes first among them.
const itemShare = 0.2

// continuers open a sentence that speaks of what the previous one named.
var continuers = setOf(`this these that those it its they them their such both together`)

// continuesPrevious reports whether sentence s opens with a word that
// refers back ("These programs…", "Together, they…").
func continuesPrevious(s string) bool {
	toks := words.Tokens(clip(s, 100))
	return len(toks) > 0 && continuers[toks[0].Lower]
}

// missingName reports whether a name the question mentions (a capitalised
// word inside it, an acronym) is in none of the sentence, its heading and
// the document's title.
func missingName(f questionFocus, sets ...map[string]bool) bool {
	for _, n := range f.names {
		found := false
		for _, set := range sets {
			found = found || set[n.Stem]
		}
		if !found {
			return true
		}
	}
	return false
}

// docSentence is one sentence of a text document, as documentSentences
// reads it.
type docSentence struct {
	text    string
	heading string // the heading it is under, "" before the first
	pos     int    // 1-based position among the document's sentences
	para    int    // the paragraph (line, list item or table row) it is in
	tail    bool   // it starts the chunk in lower case: the tail of a sentence cut off by chunking
	item    bool   // it starts a list item or is a table row
}

// documentSentences splits a text document's content into sentences: list
// markers stripped, hard-wrapped lines joined, table rows written as
// "Column: value" sentences, headings (Markdown, or short lines without
// punctuation that are not list items) taken as the heading of what
// follows. At most maxSentences.
func documentSentences(d agent.Document) []docSentence {
	var out []docSentence
	heading := ""
	pos := 0
	lines := unwrap(clip(d.Content, maxDocText))
	for i, line := range lines {
		if pos >= maxSentences {
			break
		}
		t := strings.TrimSpace(line)
		// A list item is content, however short ("**Canary** - \"A small
		// first deploy\"" in a glossary), never the heading of what follows.
		item := words.StripBullet(t) != t
		if strings.HasPrefix(t, "#") || !item && looksLikeHeading(t) {
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		if strings.Contains(t, " · ") {
			// A table row as ingest writes it ("- Priority: Medium ·
			// Response: …") is one fact: its cells are not sentences.
			pos++
			out = append(out, docSentence{text: words.StripBullet(t), heading: heading, pos: pos, para: i, item: true})
			continue
		}
		for j, s := range words.Sentences(words.StripBullet(line), maxSentences-pos) {
			pos++
			out = append(out, docSentence{text: s, heading: heading, pos: pos, para: i, tail: i == 0 && j == 0 && startsLower(s), item: item && j == 0})
		}
	}
	return out
}

// pickSentences chooses the best two to four candidates, without repeating
// a sentence that several documents share, and puts them in reading order.
// Beyond the second, a sentence must score at least half the best.
func pickSentences(cands []candidate) []candidate {
	// Stable: among equal scores, document order, then sentence order.
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	var picked []candidate
	seen := make(map[string]bool)
	for _, c := range cands {
		if len(picked) >= maxQuoted {
			break
		}
		if len(picked) >= minQuoted && c.score < cands[0].score/2 {
			break
		}
		key := normaliseClaim(c.text)
		if seen[key] {
			continue
		}
		seen[key] = true
		picked = append(picked, c)
	}
	slices.SortFunc(picked, func(a, b candidate) int { return cmp.Or(a.doc-b.doc, a.pos-b.pos) })
	return picked
}

// graphRows lists the rows of the graph documents that mention a keyword
// or an entity of the question, as cited bullets. If no row does, it lists
// the first rows, because the graph query already selected them.
func graphRows(docs []agent.Document, kws []keyword, ents []*graphwalk.Entity, excluded []string) []string {
	type row struct {
		doc  int
		text string
	}
	var matched, first []row
	seen := make(map[string]bool)
	for i, d := range docs {
		if d.Route != agent.RouteGraph {
			continue
		}
		n := 0
		for _, line := range strings.Split(clip(d.Content, maxDocText), "\n") {
			line = strings.TrimSpace(words.StripBullet(line))
			if line == "" || n >= maxRowsInDoc || len(matched) >= maxRows {
				continue
			}
			n++
			line = clipQuote(line, maxRowLen)
			key := normaliseClaim(line)
			if seen[key] || isExcluded(line, excluded) {
				continue
			}
			seen[key] = true
			r := row{doc: i, text: line}
			if len(first) < maxRows {
				first = append(first, r)
			}
			if rowMatches(line, kws, ents) {
				matched = append(matched, r)
			}
		}
	}
	if len(matched) == 0 {
		matched = first
	}
	out := make([]string, 0, len(matched))
	for _, r := range matched {
		out = append(out, "- "+r.text+" ["+strconv.Itoa(r.doc+1)+"]")
	}
	return out
}

// graphEntity is a name with its label as graph rows write it:
// "Amberley Batteries (Supplier)".
var (
	graphEntity = regexp.MustCompile(`([^\[\]()\-<>{},:]+?) \(([A-Z][A-Za-z]*)\)`)
	rowCitation = regexp.MustCompile(`\[\d+\]`)
)

// graphLead is the answer of graph rows in one sentence: the entities of
// the kind the question asks for ("Which suppliers…" → the Supplier
// names in the rows), leaving out those the question names itself, cited
// as their rows are. "" when the question asks for no kind the rows hold.
func graphLead(question string, rows []string) string {
	// The kind asked for is the first one the question names: "Which
	// suppliers are connected to our top 3 customers?" asks for suppliers.
	position := map[string]int{}
	for i, t := range words.Tokens(question) {
		if _, ok := position[words.Singular(t.Lower)]; !ok {
			position[words.Singular(t.Lower)] = i
		}
	}
	label, best := "", -1
	for _, row := range rows {
		for _, m := range graphEntity.FindAllStringSubmatch(row, -1) {
			if p, ok := position[words.Singular(strings.ToLower(m[2]))]; ok && (best < 0 || p < best) {
				label, best = m[2], p
			}
		}
	}
	if label == "" {
		return ""
	}
	lowerQ := strings.ToLower(question)
	var names, cites []string
	seen := map[string]bool{}
	named := func(name string) bool { return name != "" && strings.Contains(lowerQ, strings.ToLower(name)) }
	for _, row := range rows {
		ref := rowCitation.FindString(row)
		ms := graphEntity.FindAllStringSubmatch(row, -1)
		// A row that starts from an entity the question names answers for
		// the entity next to it only: further along a path ("Lumen Gateway
		// <- Kestrel -> Beacon S2 <- Mapleridge") the customer buys
		// something else.
		anchor := -1
		for i, m := range ms {
			if named(strings.TrimSpace(m[1])) {
				anchor = i
				break
			}
		}
		for i, m := range ms {
			name := strings.TrimSpace(m[1])
			if m[2] != label || name == "" || seen[name] || named(name) || (anchor >= 0 && i != anchor-1 && i != anchor+1) {
				continue
			}
			seen[name] = true
			names = append(names, name)
			if ref != "" && !slices.Contains(cites, ref) {
				cites = append(cites, ref)
			}
		}
	}
	if len(names) == 0 || len(names) > 12 {
		return ""
	}
	slices.Sort(names)
	if len(names) > 1 {
		label = plural(label)
	}
	return label + ": " + joinList(names, "and") + " " + strings.Join(cites, "") + "."
}

func rowMatches(line string, kws []keyword, ents []*graphwalk.Entity) bool {
	set := stemSet(line)
	return nameIn(line, ents) != "" || slices.ContainsFunc(kws, func(k keyword) bool {
		ok, _ := matchIn(k, set)
		return ok
	})
}

// citeSentence puts the citation before a sentence's final punctuation, where it
// stays attached when the answer is split into sentences again.
func citeSentence(s string, n int) string {
	marker := " [" + strconv.Itoa(n) + "]"
	s = strings.TrimSpace(s)
	if s == "" {
		return strings.TrimSpace(marker)
	}
	switch s[len(s)-1] {
	case '.', '!':
		return s[:len(s)-1] + marker + s[len(s)-1:]
	case ';', ':', ',':
		return s[:len(s)-1] + marker + "."
	}
	return s + marker + "."
}

// clipQuote shortens a quote to at most n runes at a word boundary
// (text.ClipWords): cutting inside a word or number would quote something
// the source does not say. A cut inside bold text loses the bold.
func clipQuote(s string, n int) string { return balanceBold(text.ClipWords(s, n)) }

// balanceBold removes the ** markers of a text that has an odd number of
// them: a quote cut inside bold text must not turn the rest of the message
// bold (or show a stray "**").
func balanceBold(s string) string {
	if strings.Count(s, "**")%2 == 0 {
		return s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "**", "")), " ")
}

// normaliseClaim reduces a sentence to lowercase words so that claims can
// be compared whatever their punctuation and citations.
func normaliseClaim(s string) string {
	s, _ = cite.Strip(s)
	return strings.TrimSpace(padded(words.Tokens(s)))
}

// minClaim is the shortest normalised claim used for exclusion; shorter
// ones ("yes") would exclude half the document.
const minClaim = 8

func normaliseClaims(claims []string) []string {
	var out []string
	for _, c := range claims[:min(len(claims), 50)] {
		if n := normaliseClaim(clip(c, 1000)); len(n) >= minClaim {
			out = append(out, n)
		}
	}
	return out
}

// isExcluded reports whether sentence s contains, or is contained in, one
// of the excluded claims.
func isExcluded(s string, excluded []string) bool {
	if len(excluded) == 0 {
		return false
	}
	n := normaliseClaim(s)
	if len(n) < minClaim {
		return false
	}
	for _, e := range excluded {
		if strings.Contains(" "+n+" ", " "+e+" ") || strings.Contains(" "+e+" ", " "+n+" ") {
			return true
		}
	}
	return false
}

// synonymShare is what a synonym's match is worth against the word
// itself: "leave" may answer "vacation", "vacation" surely does.
const synonymShare = 0.75

// unwrap joins the hard-wrapped lines of a paragraph, so that a sentence
// broken across lines is quoted whole. Headings, list items, table rows and
// blank lines keep their own lines.
func unwrap(text string) []string {
	var out []string
	var para strings.Builder
	flush := func() {
		if para.Len() > 0 {
			out = append(out, para.String())
			para.Reset()
		}
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|"):
			flush()
			out = append(out, t)
		case words.StripBullet(t) != t:
			// A list item starts a paragraph of its own; its indented
			// continuation lines join it, so that a sentence wrapped
			// inside an item (even inside **bold**) is quoted whole.
			flush()
			para.WriteString(t)
		default:
			if para.Len() > 0 {
				para.WriteByte(' ')
			}
			para.WriteString(t)
		}
	}
	flush()
	return out
}

// looksLikeHeading reports whether a line is a title rather than prose: a
// few words with no closing punctuation, as chunk headings are stored.
func looksLikeHeading(t string) bool {
	if t == "" || strings.ContainsAny(t[len(t)-1:], ".!?:;,)") {
		return false
	}
	return len(strings.Fields(t)) <= 8
}

// startsLower reports whether s begins with a lower-case letter.
func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// citeAll writes [1][2]… for documents 1..n, at most five.
func citeAll(n int) string {
	var b strings.Builder
	for i := 1; i <= min(n, 5); i++ {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}
