// Package lexicon is WordNet 3.0 as a small table embedded in the binary: the
// base forms of inflected words, synonyms ordered by how often each sense
// is used, the number of senses of a word, derivationally related forms,
// broader terms, and a word's usual part of speech. It is a general English
// resource for the offline engine, which knows no domain in advance.
//
// All lookups take lowercase words or multiword lemmas with spaces ("motor
// vehicle"), answer nil, 0 or None for what WordNet does not hold, never
// panic, and are safe for concurrent use. Only Lemmas and Known take
// inflected words; the others take lemmas, so a caller looks up
// Synonyms(l) for each l in Lemmas(word). Sense frequency is the SemCor
// tag count WordNet ships (cntlist.rev), then WordNet's own sense order.
//
// # Licence
//
// WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
// The data is used under the WordNet 3.0 licence, a BSD-like permission to
// use, copy, modify and distribute it with its copyright notice and
// disclaimer, whose full text is LICENSE-WordNet next to the data.
//
// # Data
//
// wordnet.gz is generated, and committed so that builds need no network:
//
//	scripts/lexicon.sh
//
// downloads Debian's wordnet-base package with apt-get (no root needed) and
// runs lexicon/internal/gen on its database files; the same input gives the
// same bytes. The table keeps, for the 147,306 lemmas and 117,659 synsets,
// only what the lookups use: each lemma's synsets by part of speech and
// rank with their tag counts, its derivation and pertainym targets (+ and \
// pointers), the hypernyms (@ and @i) of the synsets that are some lemma's
// first sense, and the 4,558 morphy exceptions whose base forms are lemmas.
// Glosses, examples and the other relations are left out. The text, after
// gunzip, is a header line giving the count of each list, then one line per
// synset (its hypernyms), one per lemma in byte order
// ("lemma TAB n<sense>,<sense>;v... TAB derived"), one per exception
// ("pos TAB form TAB base,base"). Numbers are base 36; a sense is a synset
// number, or "+" for the next synset not named before, then "*count" when
// it is tagged. Synsets are numbered in the order lemma lines first name
// them, which is what makes "+" the usual case and the table small.
//
// # Sizes
//
// Measured on 2 shared cores (AMD EPYC), Go 1.26, with
// go test ./lexicon/ -run '^$' -bench . -benchmem:
//
//   - wordnet.gz: 1.3 MB (1,315,649 bytes), 3.5 MB of text unpacked;
//   - first load (gunzip and parse, on the first lookup or Load): 50-70 ms
//     (up to 100 ms while other work shares the cores), 13 MB allocated in
//     14,000 allocations;
//   - heap kept by the parsed table: 12.3 MB, 3.5 MB of it the text itself;
//   - Lemmas, Synonyms, Derived, Broader and Usually of one word: 2-6 µs
//     together, 12 allocations.
package lexicon
