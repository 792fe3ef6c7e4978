package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed wordnet.gz
var packed []byte

// POS is a part of speech.
type POS uint8

// The parts of speech of WordNet; None is the answer for an unknown word.
const (
	None POS = iota
	Noun
	Verb
	Adj // adjectives and adjective satellites
	Adv
)

var posLetters = [...]string{None: "", Noun: "n", Verb: "v", Adj: "a", Adv: "r"}

func (p POS) String() string {
	return [...]string{"none", "noun", "verb", "adj", "adv"}[min(p, Adv)]
}

// sense is one (lemma, synset) pair of the index.
type sense struct {
	syn, lemma int32
	cnt        uint16 // SemCor tag count
	rank       uint8  // sense number within its part of speech, 1 = most frequent
	pos        POS
}

// table is the parsed data. Lists are stored as one flat slice plus a slice
// of start offsets (xs[start[i]:start[i+1]]), so a load makes few allocations.
type table struct {
	names                   []string // sorted lemmas, substrings of the decompressed text
	senses                  []sense  // by lemma, then part of speech, then rank
	lemmaSenses, derivStart []int32
	derived                 []int32 // lemma numbers
	synMembers, hyperStart  []int32
	members                 []int32             // sense numbers
	hyper                   []int32             // synset numbers
	exc                     map[string][]string // pos letter + inflected form -> base forms
	longest                 int                 // of the lemmas and exception forms: lookups of longer words end at once
}

var (
	once    sync.Once
	tab     *table
	loadErr error
)

// Load parses the embedded table if it is not parsed yet and reports whether
// it is intact. The lookups call it themselves; a server may call it at start
// so that the first question does not wait, and to log a broken build.
func Load() error {
	once.Do(func() {
		tab, loadErr = parse(packed)
		if loadErr != nil {
			tab = &table{}
		}
	})
	return loadErr
}

func get() *table {
	_ = Load() // a broken table answers nothing; Load reports why
	return tab
}

func parse(gz []byte) (*table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	// The gzip trailer ends with the text's size: read it in one allocation,
	// and keep it as the one string every lemma is a substring of.
	var sb strings.Builder
	if n := len(gz); n >= 4 {
		sb.Grow(min(int(binary.LittleEndian.Uint32(gz[n-4:])), 1<<26))
	}
	if _, err := io.Copy(&sb, zr); err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	return parseText(sb.String())
}

// parseText parses the table's text (doc.go describes it), checking every
// number against the size of the list it points into.
func parseText(text string) (*table, error) {
	var nsyn, nlemma, nexc, nsense, nhyper, nderived int
	head, text, _ := strings.Cut(text, "\n")
	if _, err := fmt.Sscanf(head, "wordnet-3.0 lexicon 1 %d %d %d %d %d %d", &nsyn, &nlemma, &nexc, &nsense, &nhyper, &nderived); err != nil ||
		min(nsyn, nlemma, nexc, nsense, nhyper, nderived) < 0 || max(nsyn, nlemma, nexc, nsense, nhyper, nderived) > len(text) {
		return nil, fmt.Errorf("lexicon: bad header %q", head)
	}
	t := &table{names: make([]string, nlemma), lemmaSenses: make([]int32, 0, nlemma+1), derivStart: make([]int32, 0, nlemma+1),
		hyperStart: make([]int32, 0, nsyn+1), exc: make(map[string][]string, nexc),
		senses: make([]sense, 0, nsense), hyper: make([]int32, 0, nhyper), derived: make([]int32, 0, nderived)}
	bad := false
	num := func(s string, limit int) int32 { // a base-36 number below limit
		n := 0
		for i := 0; i < len(s) && n < limit; i++ {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				n = n*36 + int(c-'0')
			case c >= 'a' && c <= 'z':
				n = n*36 + int(c-'a') + 10
			default:
				n = limit
			}
		}
		if s == "" || n >= limit {
			bad = true
			return 0
		}
		return int32(n)
	}
	line := func() string {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		return l
	}
	for range nsyn {
		t.hyperStart = append(t.hyperStart, int32(len(t.hyper)))
		for h := range strings.SplitSeq(line(), ",") {
			if h != "" {
				t.hyper = append(t.hyper, num(h, nsyn))
			}
		}
	}
	t.hyperStart = append(t.hyperStart, int32(len(t.hyper)))
	next := 0 // the number "+" stands for
	for i := range nlemma {
		name, rest, _ := strings.Cut(line(), "\t")
		senses, derived, _ := strings.Cut(rest, "\t")
		t.names[i], t.longest = name, max(t.longest, len(name))
		t.lemmaSenses = append(t.lemmaSenses, int32(len(t.senses)))
		for group := range strings.SplitSeq(senses, ";") {
			if group == "" {
				bad = true
				break
			}
			pos := POS(strings.Index("nvar", group[:1]) + 1)
			bad = bad || pos == None
			rank := 0
			for item := range strings.SplitSeq(group[1:], ",") {
				rank++
				id, cnt, _ := strings.Cut(item, "*")
				s := sense{lemma: int32(i), pos: pos, rank: uint8(min(rank, 255))}
				if id == "+" {
					s.syn, next = int32(next), next+1
					bad = bad || next > nsyn
				} else {
					s.syn = num(id, nsyn)
				}
				if cnt != "" {
					s.cnt = uint16(num(cnt, 1<<16))
				}
				t.senses = append(t.senses, s)
			}
		}
		t.derivStart = append(t.derivStart, int32(len(t.derived)))
		for d := range strings.SplitSeq(derived, ",") {
			if d != "" {
				t.derived = append(t.derived, num(d, nlemma))
			}
		}
	}
	t.lemmaSenses = append(t.lemmaSenses, int32(len(t.senses)))
	t.derivStart = append(t.derivStart, int32(len(t.derived)))
	for range nexc {
		f := strings.Split(line(), "\t")
		if len(f) != 3 {
			bad = true
			break
		}
		t.exc[f[0]+f[1]] = strings.Split(f[2], ",")
		t.longest = max(t.longest, len(f[1]))
	}
	if bad || !sort.StringsAreSorted(t.names) {
		return nil, fmt.Errorf("lexicon: corrupt table")
	}
	// Invert the senses into synset members: count, prefix-sum, fill.
	t.synMembers = make([]int32, nsyn+1)
	for _, s := range t.senses {
		t.synMembers[s.syn+1]++
	}
	for i := range nsyn {
		t.synMembers[i+1] += t.synMembers[i]
	}
	t.members = make([]int32, len(t.senses))
	fill := slices.Clone(t.synMembers[:nsyn])
	for i, s := range t.senses {
		t.members[fill[s.syn]] = int32(i)
		fill[s.syn]++
	}
	return t, nil
}
