package lexicon

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
}

func TestLemmas(t *testing.T) {
	for word, want := range map[string][]string{
		"went":     {"go"},
		"children": {"child"},
		"policies": {"policy"},
		"closed":   {"close", "closed"},
		"mice":     {"mouse"},
		"car":      {"car"},
		"better":   {"better", "good", "well"},
		"boxes":    {"box"},
		"xyzzyq":   nil,
	} {
		if got := Lemmas(word); !slices.Equal(got, want) {
			t.Errorf("Lemmas(%q) = %q, want %q", word, got, want)
		}
	}
}

// has checks that each of want is in got (the lists are long and their
// tails are WordNet's business, not this package's).
func has(t *testing.T, fn string, word string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s(%q) = %q, missing %q", fn, word, got, w)
		}
	}
}

func TestRelations(t *testing.T) {
	has(t, "Synonyms", "car", Synonyms("car"), "automobile", "auto")
	has(t, "Synonyms", "automobile", Synonyms("automobile"), "car")
	has(t, "Synonyms", "buy", Synonyms("buy"), "purchase")
	has(t, "Synonyms", "physician", Synonyms("physician"), "doctor")
	has(t, "Derived", "retain", Derived("retain"), "retention")
	has(t, "Derived", "deploy", Derived("deploy"), "deployment")
	has(t, "Derived", "severe", Derived("severe"), "severity")
	has(t, "Derived", "quickly", Derived("quickly"), "quick")
	has(t, "Broader", "car", Broader("car"), "motor vehicle")
	has(t, "Broader", "dog", Broader("dog"), "canine")
	has(t, "Broader", "paris", Broader("paris"), "national capital")

	// The most frequent sense comes first: a car is first an automobile, not a railcar.
	if syn := Synonyms("car"); syn[0] != "automobile" || slices.Index(syn, "railcar") < slices.Index(syn, "motorcar") {
		t.Errorf("Synonyms(car) = %q, want the automobile sense first", syn)
	}
	if b := Broader("car"); slices.Contains(b, "wheeled vehicle") {
		t.Errorf("Broader(car) = %q: railcar's hypernym is not a first sense", b)
	}
	if slices.Contains(Synonyms("car"), "car") {
		t.Error("Synonyms(car) holds the word itself")
	}
}

func TestSensesAndUsually(t *testing.T) {
	for word, want := range map[string]int{"automobile": 2, "car": 5, "run": 57, "children": 0, "": 0} {
		if got := Senses(word); got != want {
			t.Errorf("Senses(%q) = %d, want %d", word, got, want)
		}
	}
	// run has 16 noun and 41 verb senses, and its verb senses are tagged far more.
	for word, want := range map[string]POS{"run": Verb, "car": Noun, "severe": Adj, "quickly": Adv, "book": Noun, "xyzzyq": None} {
		if got := Usually(word); got != want {
			t.Errorf("Usually(%q) = %v, want %v", word, got, want)
		}
	}
	if !Known("mice") || !Known("car") || Known("xyzzyq") || Known("") {
		t.Error("Known: wrong answer for mice, car, xyzzyq or the empty word")
	}
}

func TestUnknown(t *testing.T) {
	for _, w := range []string{"", "xyzzyq", "Car", "car ", strings.Repeat("a", 1<<20), "\xff\xfe", "mice"} {
		if Synonyms(w) != nil || Derived(w) != nil || Broader(w) != nil || Senses(w) != 0 || Usually(w) != None {
			t.Errorf("%.20q: an answer for a word that is not a lemma", w)
		}
	}
}

func FuzzLexicon(f *testing.F) {
	for _, s := range []string{"", "car", "went", "closed", "mice", "ies", "s", "\xff", "a b", "running"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		for _, l := range Lemmas(w) {
			if Senses(l) == 0 {
				t.Errorf("Lemmas(%q) gave %q, which has no sense", w, l)
			}
		}
		syn := Synonyms(w)
		if slices.Contains(syn, w) {
			t.Errorf("Synonyms(%q) holds the word", w)
		}
		if (Senses(w) > 0) != (Usually(w) != None) {
			t.Errorf("%q: Senses %d but Usually %v", w, Senses(w), Usually(w))
		}
		_, _, _ = Derived(w), Broader(w), Known(w)
		_, _ = Closest(w), IsA(w, "person")
	})
}

// BenchmarkLoad measures the first load: gunzip and parse of the whole
// table. heap-B is what the parsed table keeps alive.
func BenchmarkLoad(b *testing.B) {
	var before, after runtime.MemStats
	var keep *table
	for b.Loop() {
		b.StopTimer()
		keep = nil
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		var err error
		if keep, err = parse(packed); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.StartTimer()
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "heap-B")
	runtime.KeepAlive(keep)
}

func BenchmarkLookups(b *testing.B) {
	if err := Load(); err != nil {
		b.Fatal(err)
	}
	words := []string{"car", "running", "policies", "retain", "xyzzyq", "severe", "deploy"}
	for i := 0; b.Loop(); i++ {
		w := words[i%len(words)]
		_, _, _, _, _ = Lemmas(w), Synonyms(w), Derived(w), Broader(w), Usually(w)
	}
}

// tiny is a table in the embedded format: auto and car share synset 0,
// whose hypernym is synset 1, vehicle; car derives auto (lemma 0).
const tiny = "wordnet-3.0 lexicon 1 2 3 1 3 1 1\n1\n\nauto\tn+\t\ncar\tn0*2\t0\nvehicle\tn+\t\nn\tcars\tcar\n"

func TestParseText(t *testing.T) {
	tab, err := parseText(tiny)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.synonyms("car"); !slices.Equal(got, []string{"auto"}) {
		t.Errorf("synonyms(car) = %q", got)
	}
	if got := tab.broader("car"); !slices.Equal(got, []string{"vehicle"}) {
		t.Errorf("broader(car) = %q", got)
	}
	if got := tab.lemmas("cars"); !slices.Equal(got, []string{"car"}) {
		t.Errorf("lemmas(cars) = %q", got)
	}
	for _, bad := range []string{"", "wordnet-3.0 lexicon 1 2 3 1 3 1 1\n", strings.Replace(tiny, "n0*2", "n5", 1),
		strings.Replace(tiny, "\tn+\t\ncar", "\tx+\t\ncar", 1), strings.Replace(tiny, "auto", "zzz", 1)} {
		if _, err := parseText(bad); err == nil {
			t.Errorf("parseText(%q) took a corrupt table", bad)
		}
	}
}

// FuzzParse checks that no table text makes the parser or, when it accepts
// the text, a lookup panic.
func FuzzParse(f *testing.F) {
	f.Add(tiny, "cars")
	f.Add(strings.Replace(tiny, "\t0\n", "\t0,1,2\n", 1), "car")
	f.Fuzz(func(t *testing.T, text, word string) {
		tab, err := parseText(text)
		if err != nil {
			return
		}
		_, _, _, _ = tab.lemmas(word), tab.synonyms(word), tab.related(word), tab.broader(word)
		_, _ = tab.count(word), tab.usually(word)
	})
}

func TestClosestAndIsA(t *testing.T) {
	if got := Closest("manager"); !slices.Contains(got, "director") {
		t.Errorf("Closest(manager) = %v, want director among them", got)
	}
	if got := Closest("close"); slices.Contains(got, "conclude") {
		t.Errorf("Closest(close) = %v: a rarer sense leaked in", got)
	}
	for _, c := range []struct {
		word, kind string
		want       bool
	}{
		{"manager", "person", true},
		{"commander", "person", true},
		{"tuesday", "time period", true},
		{"january", "time period", true},
		{"channel", "person", false},
		{"value", "person", false},
		{"nosuchword", "person", false},
		{"manager", "nosuchword", false},
		{"", "", false},
	} {
		if got := IsA(c.word, c.kind); got != c.want {
			t.Errorf("IsA(%q, %q) = %v, want %v", c.word, c.kind, got, c.want)
		}
	}
}
