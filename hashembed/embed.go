// Package hashembed is a local, deterministic text embedder for when no
// embedding model is configured: feature hashing of words and character
// trigrams (see Embedder). It needs no model and no network, so the
// knowledge base can be embedded and searched anywhere.
package hashembed

import (
	"context"
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
)

// DefaultDimensions is the Embedder's vector size when none is given.
const DefaultDimensions = 384

// Embedder limits: a vector of more than maxDimensions floats is no better
// for hashed features, and a chunk longer than maxEmbedText says what it is
// about in its first part.
const (
	maxDimensions = 8192
	maxEmbedText  = 32000
	maxGramWord   = 32 // longest word, in runes, whose character trigrams are used
)

// Feature weights. Whole words carry the meaning; character trigrams let
// "refund" meet "refunds" and "refundable" and survive typos, but there are
// many of them per word, so each counts less.
const (
	wordWeight = 1.0
	gramWeight = 0.35
)

// Embedder is a local, deterministic text embedder for when no embedding
// model is configured. It uses feature hashing: each word (lowercased,
// stemmed, stopwords dropped) and each character trigram of each word
// (with boundary markers, "<re", "ref", …, "nd>") is hashed with FNV-1a to
// a dimension and a sign; counts are dampened (1 + ln tf) and the vector is
// L2-normalised, so cosine similarity measures shared vocabulary. It knows
// no synonyms: it finds documents that use the question's words.
//
// The zero Embedder uses DefaultDimensions. An Embedder is safe for
// concurrent use.
type Embedder struct {
	dim int
}

// New returns an Embedder producing vectors of dim dimensions;
// dim <= 0 means DefaultDimensions. Vectors of different sizes (and of
// another embedder) are not comparable, so a store must be embedded and
// queried with the same size.
func New(dim int) *Embedder {
	return &Embedder{dim: dim}
}

// Dimensions returns the size of the vectors Embed returns.
func (e *Embedder) Dimensions() int {
	switch {
	case e == nil || e.dim <= 0:
		return DefaultDimensions
	case e.dim > maxDimensions:
		return maxDimensions
	}
	return e.dim
}

// Embed returns one unit vector per text, in order. A text with no words
// gets the zero vector. It fails only when ctx is done.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dim := e.Dimensions()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = embedOne(t, dim)
	}
	return out, nil
}

// FNV-1a, 64-bit, written out so that hashing a feature allocates nothing.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// embedsStopword are filler words (words.IsFiller) the Embedder still
// embeds: they became filler when the offline engine's list took on the
// stores' stopwords, after vectors had been stored under the embedder's
// name (local-hash-N, see cmd/bot). Dropping them would change those
// vectors and not the name. Empty this when the name changes;
// TestEmbedderFormat pins the vectors.
var embedsStopword = map[string]bool{"give": true, "list": true, "per": true, "vs": true}

func embedOne(s string, dim int) []float32 {
	toks := words.Tokens(text.ClipBytes(s, maxEmbedText))
	content := toks[:0:0]
	for _, t := range toks {
		if !words.IsFiller(t.Lower) || embedsStopword[t.Lower] {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		content = toks // "who are you" is all stopwords, and still a text
	}

	// Term frequencies per hashed feature; the 64-bit hash is the key.
	tf := make(map[uint64]float64)
	weight := make(map[uint64]float64)
	for _, t := range content {
		h := fnvString(fnvString(fnvOffset, "w:"), t.Stem)
		tf[h]++
		weight[h] = wordWeight
		if utf8.RuneCountInString(t.Lower) > maxGramWord {
			continue
		}
		rs := append(append([]rune{'<'}, []rune(t.Lower)...), '>')
		for i := 0; i+3 <= len(rs); i++ {
			g := fnvString(fnvOffset, "g:")
			g = fnvString(g, string(rs[i:i+3]))
			tf[g]++
			weight[g] = gramWeight
		}
	}

	// Sum in a fixed order: float addition is not associative, and the
	// same text must give the same vector bit for bit.
	keys := slices.Sorted(maps.Keys(tf))
	v := make([]float64, dim)
	for _, h := range keys {
		w := weight[h] * (1 + math.Log(tf[h]))
		// The low bits choose the dimension, a high bit the sign, so that
		// colliding features cancel out on average instead of adding up.
		if h>>63 == 1 {
			w = -w
		}
		v[h%uint64(dim)] += w
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
