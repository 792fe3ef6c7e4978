// Command gen turns the WordNet 3.0 database files (index.*, data.*, *.exc,
// cntlist.rev) into lexicon/wordnet.gz, the compact table package lexicon
// embeds. scripts/lexicon.sh runs it; see lexicon/doc.go for the format.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

var posFiles = []struct{ letter, file string }{{"n", "noun"}, {"v", "verb"}, {"a", "adj"}, {"r", "adv"}}

type sense struct {
	syn       string // pos letter + offset: the synset's key in the data files
	pos, rank int    // pos index into posFiles, rank 1 = most frequent
	cnt       int    // SemCor tag count from cntlist.rev
}

type synset struct {
	words []string    // normalised lemmas, in WordNet's order
	hyper []string    // synset keys of @ and @i pointers
	deriv [][3]string // + and \ pointers: source word number, target synset key, target word number
}

func norm(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 { // adjective markers: galore(ip)
		w = w[:i]
	}
	return strings.ReplaceAll(strings.ToLower(w), "_", " ")
}

func lines(path string, fn func(f []string)) {
	file, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if t := sc.Text(); t != "" && t[0] != ' ' { // data and index files open with an indented licence
			fn(strings.Fields(t))
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	dict := flag.String("dict", "", "directory of the WordNet 3.0 database files")
	out := flag.String("out", "lexicon/wordnet.gz", "table to write")
	flag.Parse()

	// Tag counts by sense key: lemma%ss_type:... -> (lemma, pos, sense number).
	counts := map[string]int{}
	sstype := map[string]int{"1": 0, "2": 1, "3": 2, "5": 2, "4": 3}
	lines(filepath.Join(*dict, "cntlist.rev"), func(f []string) {
		lemma, rest, _ := strings.Cut(f[0], "%")
		counts[fmt.Sprintf("%s %d %s", norm(lemma), sstype[rest[:1]], f[1])], _ = strconv.Atoi(f[2])
	})

	senses := map[string][]sense{}
	synsets := map[string]*synset{}
	for p, pf := range posFiles {
		lines(filepath.Join(*dict, "index."+pf.file), func(f []string) {
			lemma := norm(f[0])
			n, _ := strconv.Atoi(f[2])
			offs := f[len(f)-n:]
			for i, off := range offs {
				senses[lemma] = append(senses[lemma], sense{pf.letter + off, p, i + 1, counts[fmt.Sprintf("%s %d %d", lemma, p, i+1)]})
			}
		})
		lines(filepath.Join(*dict, "data."+pf.file), func(f []string) {
			s := &synset{}
			nw, _ := strconv.ParseInt(f[3], 16, 32)
			for i := 0; i < int(nw); i++ {
				s.words = append(s.words, norm(f[4+2*i]))
			}
			at := 4 + 2*int(nw)
			np, _ := strconv.Atoi(f[at])
			for i := 0; i < np; i++ {
				ptr := f[at+1+4*i : at+5+4*i] // symbol offset pos source/target
				key := strings.Replace(ptr[2], "s", "a", 1) + ptr[1]
				switch ptr[0] {
				case "@", "@i":
					s.hyper = append(s.hyper, key)
				case "+", "\\":
					s.deriv = append(s.deriv, [3]string{ptr[3][:2], key, ptr[3][2:]})
				}
			}
			synsets[pf.letter+f[0]] = s
		})
	}

	names := make([]string, 0, len(senses))
	for l, ss := range senses {
		names = append(names, l)
		sort.SliceStable(ss, func(i, j int) bool { return before(ss[i], ss[j]) })
	}
	sort.Strings(names)
	lemmaID := map[string]int{}
	for i, l := range names {
		lemmaID[l] = i
	}

	// Synsets are numbered in the order the lemma lines first name them, so
	// that most references are the next new number, written "+".
	synID := map[string]int{}
	var order []string
	first := map[string]bool{} // synsets that are some lemma's first sense in some part of speech
	var body strings.Builder
	nsenses, nderived := 0, 0
	for _, l := range names {
		groups := make([][]string, len(posFiles))
		ranked := append([]sense(nil), senses[l]...)
		sort.Slice(ranked, func(i, j int) bool {
			return ranked[i].pos < ranked[j].pos || ranked[i].pos == ranked[j].pos && ranked[i].rank < ranked[j].rank
		})
		for _, s := range ranked {
			item := "+"
			if id, ok := synID[s.syn]; ok {
				item = strconv.FormatInt(int64(id), 36)
			} else {
				synID[s.syn] = len(order)
				order = append(order, s.syn)
			}
			if s.cnt > 0 {
				item += "*" + strconv.FormatInt(int64(min(s.cnt, 65535)), 36)
			}
			groups[s.pos] = append(groups[s.pos], item)
			first[s.syn] = first[s.syn] || s.rank == 1
		}
		var parts []string
		for p, g := range groups {
			if len(g) > 0 {
				parts = append(parts, posFiles[p].letter+strings.Join(g, ","))
			}
		}
		d := derived(l, senses[l], synsets, lemmaID)
		nsenses, nderived = nsenses+len(ranked), nderived+len(d)
		fmt.Fprintf(&body, "%s\t%s\t%s\n", l, strings.Join(parts, ";"), strings.Join(d, ","))
	}

	var exc []string
	for p, pf := range posFiles {
		lines(filepath.Join(*dict, pf.file+".exc"), func(f []string) {
			var bases []string
			for _, b := range f[1:] {
				if b = norm(b); hasPOS(senses[b], p) && !slices.Contains(bases, b) {
					bases = append(bases, b)
				}
			}
			if len(bases) > 0 {
				exc = append(exc, fmt.Sprintf("%s\t%s\t%s\n", pf.letter, norm(f[0]), strings.Join(bases, ",")))
			}
		})
	}

	file, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(file, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	var hyper strings.Builder
	nhyper := 0
	for _, key := range order {
		var ids []string
		if s := synsets[key]; s != nil && first[key] {
			for _, h := range s.hyper {
				if id, ok := synID[h]; ok {
					ids = append(ids, strconv.FormatInt(int64(id), 36))
				}
			}
		}
		nhyper += len(ids)
		fmt.Fprintln(&hyper, strings.Join(ids, ","))
	}
	// The header gives the sizes of every list, so the package allocates each once.
	fmt.Fprintf(w, "wordnet-3.0 lexicon 1 %d %d %d %d %d %d\n", len(order), len(names), len(exc), nsenses, nhyper, nderived)
	w.WriteString(hyper.String())
	w.WriteString(body.String())
	w.WriteString(strings.Join(exc, ""))
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := file.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d synsets, %d lemmas, %d exceptions", *out, len(order), len(names), len(exc))
}

// before is the order of a lemma's senses across parts of speech that the
// package uses too: most tagged first, then WordNet's rank, then n, v, a, r.
func before(a, b sense) bool {
	if a.cnt != b.cnt {
		return a.cnt > b.cnt
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// derived lists, as base-36 lemma numbers, the targets of the lexical + and \
// pointers whose source is this lemma, in the order of its senses.
func derived(l string, ss []sense, synsets map[string]*synset, lemmaID map[string]int) []string {
	var out []string
	seen := map[int]bool{lemmaID[l]: true}
	for _, s := range ss {
		src := synsets[s.syn]
		for _, d := range src.deriv {
			from, _ := strconv.ParseInt(d[0], 16, 32)
			to, _ := strconv.ParseInt(d[2], 16, 32)
			tgt := synsets[d[1]]
			if from < 1 || int(from) > len(src.words) || src.words[from-1] != l || tgt == nil || to < 1 || int(to) > len(tgt.words) {
				continue
			}
			if id, ok := lemmaID[tgt.words[to-1]]; ok && !seen[id] {
				seen[id] = true
				out = append(out, strconv.FormatInt(int64(id), 36))
			}
		}
	}
	return out
}

func hasPOS(ss []sense, p int) bool {
	for _, s := range ss {
		if s.pos == p {
			return true
		}
	}
	return false
}
