package wiki

import (
	"bufio"
	_ "embed" // the generator's model
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	//go:embed model/vocab.tsv
	vocabTSV string
	//go:embed model/titles.txt
	titlesTxt string
	//go:embed model/lengths.txt
	lengthsTxt string
)

// model is the unigram language model derived from the real samples.
type model struct {
	tokens  []string
	alias   []int32
	prob    []float64
	titles  []string
	lengths []int
}

func loadModel() (*model, error) {
	m := &model{}
	var weights []float64
	for _, line := range strings.Split(strings.TrimSpace(vocabTSV), "\n") {
		tok, n, ok := strings.Cut(line, "\t")
		c, err := strconv.Atoi(n)
		if !ok || err != nil {
			return nil, fmt.Errorf("wiki: bad vocab line %q", line)
		}
		m.tokens = append(m.tokens, tok)
		weights = append(weights, float64(c))
	}
	m.titles = strings.Split(strings.TrimSpace(titlesTxt), "\n")
	for _, l := range strings.Fields(lengthsTxt) {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, fmt.Errorf("wiki: bad length %q", l)
		}
		m.lengths = append(m.lengths, n)
	}
	m.prob, m.alias = aliasTable(weights)
	return m, nil
}

// aliasTable builds Vose's alias tables for O(1) weighted sampling.
func aliasTable(w []float64) ([]float64, []int32) {
	n := len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	prob := make([]float64, n)
	alias := make([]int32, n)
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		prob[s], alias[s] = scaled[s], l
		scaled[l] = scaled[l] + scaled[s] - 1
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		prob[i] = 1
	}
	return prob, alias
}

func (m *model) token(r *rand.Rand) string {
	i := r.IntN(len(m.tokens))
	if r.Float64() >= m.prob[i] {
		i = int(m.alias[i])
	}
	return m.tokens[i]
}

// GenOptions configure the generator.
type GenOptions struct {
	Docs int64
	Seed uint64
}

// Generate writes a dump of o.Docs documents in the real format: titles
// from the samples (numbered once they repeat), abstracts drawn from the
// samples' token frequencies with the samples' abstract lengths, and a few
// section links. The same options give the same bytes.
func Generate(w io.Writer, o GenOptions) error {
	m, err := loadModel()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x7461697262656e63))
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("<feed>\n")
	var ab strings.Builder
	for i := int64(0); i < o.Docs; i++ {
		title := m.titles[i%int64(len(m.titles))]
		if round := i / int64(len(m.titles)); round > 0 {
			title += " (" + strconv.FormatInt(round+1, 10) + ")"
		}
		ab.Reset()
		n := m.lengths[r.IntN(len(m.lengths))]
		for j := 0; j < n; j++ {
			t := m.token(r)
			if j == 0 {
				t = capitalize(t)
			} else {
				ab.WriteByte(' ')
			}
			ab.WriteString(t)
		}
		path := strings.ReplaceAll(title, " ", "_")
		fmt.Fprintf(bw, "<doc>\n<title>Wikipedia: %s</title>\n<url>https://en.wikipedia.org/wiki/%s</url>\n<abstract>%s</abstract>\n<links>\n",
			html.EscapeString(title), html.EscapeString(path), html.EscapeString(ab.String()))
		for k := r.IntN(4); k > 0; k-- {
			sec := capitalize(strings.Trim(m.token(r), ".,;:\"'()"))
			fmt.Fprintf(bw, "<sublink linktype=\"nav\"><anchor>%s</anchor><link>https://en.wikipedia.org/wiki/%s#%s</link></sublink>\n",
				html.EscapeString(sec), html.EscapeString(path), html.EscapeString(sec))
		}
		bw.WriteString("</links>\n</doc>\n")
	}
	bw.WriteString("</feed>\n")
	return bw.Flush()
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
