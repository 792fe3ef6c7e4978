package offline

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/cite"
	"github.com/switchboard/switchboard/kb/words"
)

// supportedShare is the share of a sentence's content words that must occur
// in the documents it cites. Not all: an answer joins quoted facts with a
// few words of its own ("also", "however", "the policy says").
const supportedShare = 0.6

// maxUnsupported bounds the claims a verdict lists; they are shown to users.
const maxUnsupported = 20

// claim is one sentence of an answer and the documents it cites.
type claim struct {
	text string // without citations and list markers
	refs []int  // 1-based, as written
}

// Check verifies an answer sentence by sentence, whoever wrote it. A
// sentence is supported when at least 60% of its content words (stemmed,
// stopwords removed) occur in the documents it cites, or in any document
// if it cites none, and every number it states occurs there too. A sentence
// that cites only documents that do not exist is unsupported. Lead-ins such
// as "From the knowledge graph:" and the generator's own "no sentence
// answers this" are not claims and are not checked.
//
// The supported sentences then answer the question when they cover its
// focus: its names, most of its topic words, and the kind of answer it
// asks for (answers.go). Missing says what they do not cover.
func (b *Brain) Check(ctx context.Context, question, answer string, docs []agent.Document) (agent.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return agent.Verdict{}, err
	}
	docs = docs[:min(len(docs), maxDocs)]
	ev := newEvidence(docs)
	var unsupported, supported []string
	checked := 0
	for _, c := range claimsOf(answer) {
		if isMetaSentence(c.text) {
			checked++
			continue
		}
		words, nums := contentOf(c.text)
		if len(words) == 0 && len(nums) == 0 {
			continue // nothing is claimed: "Yes." or a lone symbol
		}
		checked++
		if ev.supports(c.refs, words, nums) {
			supported = append(supported, c.text)
		} else if len(unsupported) < maxUnsupported {
			unsupported = append(unsupported, clipQuote(c.text, 300))
		}
	}
	v := agent.Verdict{Grounded: checked > 0 && len(unsupported) == 0, Unsupported: unsupported}
	if v.Grounded {
		cov := answersFocus(focusOf(question), supported, allText(docs), titles(docs))
		v.Answers = cov.answers && len(supported) > 0
		if !v.Answers {
			v.Missing = cov.missing
		}
	}
	return v, nil
}

// titles is the stem set of the documents' titles and section headings:
// a sentence of the Refund Policy speaks of the refund policy without
// naming it, and a line under the heading of a setting gives its values
// without naming the setting.
func titles(docs []agent.Document) map[string]bool {
	set := make(map[string]bool)
	for _, d := range docs {
		for k := range docStemSet(clip(d.Title+" "+d.Section, 500)) {
			set[k] = true
		}
	}
	return set
}

// allText is the text of the documents, which the answering check reads
// for the names and words of the question.
func allText(docs []agent.Document) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(docText(d))
		b.WriteString("\n")
	}
	return b.String()
}

// claimsOf splits an answer into sentences: by line (list items are
// claims of their own), then by sentence, each with its citations.
func claimsOf(answer string) []claim {
	var out []claim
	for _, line := range strings.Split(clip(answer, maxAnswer), "\n") {
		if len(out) >= maxSentences {
			break
		}
		line = cite.Move(words.StripBullet(line))
		for _, s := range words.Sentences(line, maxSentences-len(out)) {
			text, refs := cite.Strip(s)
			text = words.StripBullet(text)
			if text == "" {
				// A citation on its own belongs to the sentence before it.
				if n := len(out); n > 0 {
					out[n-1].refs = append(out[n-1].refs, refs...)
				}
				continue
			}
			out = append(out, claim{text: text, refs: refs})
		}
	}
	return out
}

// isMetaSentence recognises sentences about the answer rather than about
// the world: the generator's fixed phrases and short lead-ins ending in a
// colon ("The sources say:").
func isMetaSentence(s string) bool {
	if strings.HasPrefix(s, noDirectAnswer) || s == noDocuments || s == graphLeadIn {
		return true
	}
	return strings.HasSuffix(s, ":") && len(words.Tokens(s)) <= 6 && len(words.Numbers(s)) == 0
}

// contentOf returns the distinct stems of a sentence's content words and
// the numbers it states. Numbers are checked on their own, exactly.
func contentOf(s string) (stems, nums []string) {
	seen := make(map[string]bool)
	for _, t := range words.Tokens(s) {
		if len(stems) >= 64 {
			break
		}
		if words.IsFiller(t.Lower) || len(t.Lower) < 2 || words.IsDigits(t.Lower) || seen[t.Stem] {
			continue
		}
		seen[t.Stem] = true
		stems = append(stems, t.Stem)
	}
	return stems, words.Numbers(s)
}

// evidence indexes the documents' words and numbers (numbers as "#n"),
// lazily: an answer usually cites a few of them.
type evidence struct {
	docs []agent.Document
	sets []map[string]bool
}

func newEvidence(docs []agent.Document) *evidence {
	return &evidence{docs: docs, sets: make([]map[string]bool, len(docs))}
}

func (e *evidence) set(i int) map[string]bool {
	if e.sets[i] == nil {
		text := docText(e.docs[i])
		e.sets[i] = maps.Clone(docStemSet(text)) // docStemSet's is shared
		for _, n := range words.Numbers(text) {
			e.sets[i]["#"+n] = true
		}
	}
	return e.sets[i]
}

// supports reports whether the cited documents (all of them when refs is
// empty) hold supportedShare of the words and every number.
func (e *evidence) supports(refs []int, stems, nums []string) bool {
	var use []int
	for _, r := range refs {
		if r >= 1 && r <= len(e.docs) {
			use = append(use, r-1)
		}
	}
	if len(refs) == 0 {
		for i := range e.docs {
			use = append(use, i)
		}
	}
	if len(use) == 0 {
		return false // cites only sources that do not exist, or there are none
	}
	has := func(key string) bool { return slices.ContainsFunc(use, func(i int) bool { return e.set(i)[key] }) }
	found := 0
	for _, w := range stems {
		if has(w) {
			found++
		}
	}
	return float64(found) >= supportedShare*float64(len(stems)) && !slices.ContainsFunc(nums, func(n string) bool { return !has("#" + n) })
}
