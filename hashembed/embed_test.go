package hashembed

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"testing"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestEmbedderSimilarity(t *testing.T) {
	tests := []struct {
		a, b    string
		similar bool
	}{
		{"What is the refund policy?", "Refund policy: customers can return items within 30 days for a full refund.", true},
		{"What is the refund policy?", "refunds", true},
		{"How long do we keep logs?", "Our data retention policy keeps logs for 90 days", true},
		{"Which suppliers deliver to Acme Corp?", "Acme Corp is supplied by Globex and Initech", true},
		{"What is the refund policy?", "Quarterly revenue grew 12% in Europe.", false},
		{"What is the refund policy?", "How long do we keep logs?", false},
		{"The cat sat on the mat", "Quarterly revenue grew 12% in Europe.", false},
	}
	e := New(0)
	for _, tt := range tests {
		vs, err := e.Embed(context.Background(), []string{tt.a, tt.b})
		if err != nil {
			t.Fatal(err)
		}
		c := cosine(vs[0], vs[1])
		if tt.similar && c < 0.35 || !tt.similar && c > 0.15 {
			t.Errorf("cosine(%q, %q) = %.2f, want similar=%v", tt.a, tt.b, c, tt.similar)
		}
	}
}

func TestEmbedderVectors(t *testing.T) {
	ctx := context.Background()
	e := New(0)
	if e.Dimensions() != DefaultDimensions {
		t.Errorf("Dimensions() = %d, want %d", e.Dimensions(), DefaultDimensions)
	}
	texts := []string{"Refund policy", "", "!!!", "who are you"}
	vs, err := e.Embed(ctx, texts)
	if err != nil || len(vs) != len(texts) {
		t.Fatalf("Embed = %d vectors, %v", len(vs), err)
	}
	for i, v := range vs {
		if len(v) != DefaultDimensions {
			t.Errorf("vector %d has %d dimensions", i, len(v))
		}
		norm := math.Sqrt(cosine(v, v))
		wantZero := texts[i] == "" || texts[i] == "!!!"
		if wantZero && norm != 0 || !wantZero && math.Abs(norm-1) > 1e-5 {
			t.Errorf("vector %d (%q) has norm %v", i, texts[i], norm)
		}
	}
	again, _ := e.Embed(ctx, texts)
	if !reflect.DeepEqual(vs, again) {
		t.Error("Embed is not deterministic")
	}
	if got := New(64).Dimensions(); got != 64 {
		t.Errorf("New(64).Dimensions() = %d", got)
	}
	var zero Embedder
	if v, _ := zero.Embed(ctx, []string{"x"}); len(v[0]) != DefaultDimensions {
		t.Errorf("zero Embedder gives %d dimensions", len(v[0]))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Embed(cancelled, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed: err = %v", err)
	}
}

// TestEmbedderFormat pins the vectors, bit for bit: stores keep them
// under the embedder's name, so a change to the features (tokens,
// stopwords, weights, hashing) must come with a new name, or old vectors
// stop meeting new queries. The text has stopwords of both lists.
func TestEmbedderFormat(t *testing.T) {
	vs, err := New(0).Embed(context.Background(), []string{"Give me a list: meals vs gifts, in EUR per person? Can you tell me, thanks!"})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	for _, f := range vs[0] {
		b := math.Float32bits(f)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
	}
	if got, want := h.Sum64(), uint64(0x3f58a1d0b5de228e); got != want {
		t.Errorf("vector hash %#x, want %#x: the embedder's features changed", got, want)
	}
}

// FuzzEmbed embeds whatever users type and documents hold: every text gets
// a vector of the asked size, a unit vector or zero, with no NaN, and no
// input makes it panic.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{
		"What is the refund policy?", "", "!!!", "who are you", "Acme's CVs: don't https://x.example/a b",
		"İstanbul \u212aelvin", strings.Repeat("supercalifragilistic", 10), strings.Repeat("refund ", 10000),
	} {
		f.Add(s, 16)
	}
	f.Add("x", -1)
	f.Add("x", 1<<20)
	f.Fuzz(func(t *testing.T, s string, dim int) {
		e := New(dim)
		vs, err := e.Embed(context.Background(), []string{s})
		if err != nil || len(vs) != 1 || len(vs[0]) != e.Dimensions() {
			t.Fatalf("Embed(%q) with %d dimensions = %d vectors, %v", s, dim, len(vs), err)
		}
		norm := math.Sqrt(cosine(vs[0], vs[0]))
		if math.IsNaN(norm) || norm != 0 && math.Abs(norm-1) > 1e-5 {
			t.Errorf("Embed(%q) has norm %v", s, norm)
		}
	})
}

// TestEmbedHugeText checks that a 1 MB text is embedded (only its prefix
// is read) like its prefix.
func TestEmbedHugeText(t *testing.T) {
	ctx := context.Background()
	e := New(0)
	prefix := strings.Repeat("Refunds take 30 days. Acme Corp supplies Globex.\n", maxEmbedText/40)
	huge := prefix + strings.Repeat("Unrelated words about holidays.\n", 30000)
	vs, err := e.Embed(ctx, []string{huge, prefix[:maxEmbedText]})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(vs[0], vs[1]) {
		t.Error("a huge text is not embedded as its first maxEmbedText bytes")
	}
}
