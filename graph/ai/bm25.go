// Package ai is the service's own processing: the responders
// that answer a customer (the built-in BM25 one and an OpenAI-compatible
// LLM), the job that answers each inbound message of an `ai` conversation
// in order, the hand-off to the human queue and its routing to agents, and
// the agents' operations that GraphQL serves.
package ai

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters: the usual k1 and b.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Threshold is the confidence the built-in responder needs to answer with
// an entry (docs/api.md): the share of the message's weight (the IDF of its
// known words) that the best entry covers, at least half.
const Threshold = 0.5

// Doc is one knowledge entry as the index ranks it.
type Doc struct {
	ID       string
	Question string
	Answer   string
}

// Index ranks knowledge entries against a message with BM25 over their
// question and answer (the question counts twice: it says what the entry
// is for).
type Index struct {
	docs   []Doc
	terms  []map[string]int
	length []float64
	avg    float64
	df     map[string]int
}

// NewIndex indexes the entries.
func NewIndex(docs []Doc) *Index {
	ix := &Index{docs: docs, df: map[string]int{}}
	total := 0.0
	for _, d := range docs {
		tf := map[string]int{}
		q := terms(d.Question)
		for _, t := range q {
			tf[t] += 2
		}
		for _, t := range terms(d.Answer) {
			tf[t]++
		}
		n := 0
		for t, c := range tf {
			ix.df[t]++
			n += c
		}
		ix.terms = append(ix.terms, tf)
		ix.length = append(ix.length, float64(n))
		total += float64(n)
	}
	if len(docs) > 0 {
		ix.avg = total / float64(len(docs))
	}
	return ix
}

// Hit is an entry with its BM25 score and confidence (0-1: the share of the
// message's known words' IDF that the entry matches).
type Hit struct {
	Doc        Doc
	Score      float64
	Confidence float64
}

func (ix *Index) idf(t string) float64 {
	n, N := float64(ix.df[t]), float64(len(ix.docs))
	return math.Log(1 + (N-n+0.5)/(n+0.5))
}

// Search ranks the entries against a message, best first; entries sharing
// no word with it are left out.
func (ix *Index) Search(message string) []Hit {
	q := unique(terms(message))
	known := 0.0
	for _, t := range q {
		if ix.df[t] > 0 {
			known += ix.idf(t)
		}
	}
	var hits []Hit
	for i, tf := range ix.terms {
		score, matched := 0.0, 0.0
		for _, t := range q {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			idf := ix.idf(t)
			matched += idf
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*ix.length[i]/ix.avg))
		}
		if score > 0 {
			hits = append(hits, Hit{Doc: ix.docs[i], Score: score, Confidence: matched / known})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	return hits
}

// Best is the entry the built-in responder answers with: the top hit when
// its confidence reaches Threshold.
func (ix *Index) Best(message string) (Hit, bool) {
	hits := ix.Search(message)
	if len(hits) == 0 || hits[0].Confidence < Threshold {
		return Hit{}, false
	}
	return hits[0], true
}

func unique(ts []string) []string {
	seen := map[string]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// words splits text into lower-case words of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// terms are the words of a text that carry meaning, stemmed and mapped onto
// a shared synonym, so "delivery" finds "shipping".
func terms(text string) []string {
	var out []string
	for _, w := range words(text) {
		w = strings.Trim(w, "'")
		if w == "" || stopwords[w] {
			continue
		}
		w = strings.TrimSuffix(w, "'s")
		if s, ok := synonyms[w]; ok {
			out = append(out, s)
			continue
		}
		t := stem(w)
		if s, ok := stemmedSynonyms[t]; ok {
			t = s
		}
		out = append(out, t)
	}
	return out
}

// stem strips common English suffixes (a light stemmer: enough to match
// "shipping", "shipped" and "ships").
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, suf := range []string{"ational", "ation", "ness", "ments", "ment", "ings", "ing", "edly", "ies", "ied", "ed", "ly", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ies" || suf == "ied" {
				w += "y"
			}
			break
		}
	}
	// shipp -> ship, stopp -> stop
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	// arrive and arrives -> arriv
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// stemmedSynonyms is synonyms keyed by stems, for inflected words.
var stemmedSynonyms = func() map[string]string {
	out := map[string]string{}
	for k, v := range synonyms {
		out[stem(k)] = v
	}
	return out
}()
