// Command wikimodel derives the generator's model from the Wikipedia samples
// (CC BY-SA; see the NOTICE it copies): token counts, titles and abstract
// lengths. Run from the repository root:
//
//	go run ./tools/wikimodel -from ../shared/data/wiki -out internal/wiki/model
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	from := flag.String("from", "../shared/data/wiki", "folder with the samples")
	out := flag.String("out", "internal/wiki/model", "output folder")
	minCount := flag.Int("min-count", 2, "drop tokens seen fewer times")
	flag.Parse()
	if err := run(*from, *out, *minCount); err != nil {
		fmt.Fprintln(os.Stderr, "wikimodel:", err)
		os.Exit(1)
	}
}

func run(from, out string, minCount int) error {
	raw, err := os.ReadFile(filepath.Join(from, "enwiki-abstract-sample-2019.xml"))
	if err != nil {
		return err
	}
	re := regexp.MustCompile(`(?s)<title>Wikipedia: (.*?)</title>.*?<abstract>(.*?)</abstract>`)
	counts := map[string]int{}
	var titles []string
	var lengths []int
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		titles = append(titles, m[1])
		toks := strings.Fields(m[2])
		lengths = append(lengths, len(toks))
		for _, t := range toks {
			counts[t]++
		}
	}
	sj, err := os.ReadFile(filepath.Join(from, "wikipedia-summaries-en-2026.json"))
	if err != nil {
		return err
	}
	var sums map[string]struct {
		Title   string `json:"title"`
		Extract string `json:"extract"`
	}
	if err := json.Unmarshal(sj, &sums); err != nil {
		return err
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := sums[k]
		titles = append(titles, s.Title)
		for _, t := range strings.Fields(s.Extract) {
			counts[t]++
		}
	}
	type tc struct {
		t string
		n int
	}
	var vocab []tc
	for t, n := range counts {
		if n >= minCount && !strings.ContainsAny(t, "\t\n<>&") {
			vocab = append(vocab, tc{t, n})
		}
	}
	sort.Slice(vocab, func(i, j int) bool {
		if vocab[i].n != vocab[j].n {
			return vocab[i].n > vocab[j].n
		}
		return vocab[i].t < vocab[j].t
	})
	var vb strings.Builder
	for _, v := range vocab {
		fmt.Fprintf(&vb, "%s\t%d\n", v.t, v.n)
	}
	var tb strings.Builder
	for _, t := range titles {
		if t = strings.TrimSpace(t); t != "" && !strings.ContainsAny(t, "\n<>&") {
			tb.WriteString(t + "\n")
		}
	}
	var lb strings.Builder
	for _, l := range lengths {
		fmt.Fprintf(&lb, "%d\n", l)
	}
	notice, err := os.ReadFile(filepath.Join(from, "NOTICE.md"))
	if err != nil {
		return err
	}
	header := "# Generator model\n\nDerived from the samples below by tools/wikimodel: token counts (whitespace tokens seen at least twice), titles and abstract lengths. It is Wikipedia text under CC BY-SA; the samples' notice follows.\n\n"
	for name, body := range map[string]string{"vocab.tsv": vb.String(), "titles.txt": tb.String(), "lengths.txt": lb.String(),
		"NOTICE.md": header + string(notice)} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("vocab %d tokens, %d titles, %d lengths\n", len(vocab), len(titles), len(lengths))
	return nil
}
