package track

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tairbench/tairbench/internal/fulltext/jieba"
)

// Categories are the generated products' categories.
var Categories = []string{"手机", "电脑", "家电", "服装", "鞋靴", "美妆", "食品", "母婴", "图书", "运动", "家具", "玩具", "汽车用品", "宠物", "珠宝", "箱包"}

// brands are made-up brand names (no real company).
var brands = []string{"星河", "青禾", "远山", "白鹭", "云杉", "北辰", "知夏", "木槿", "晨曦", "蓝湾", "松果", "鹿鸣"}

// vocab is jieba's dictionary sampled by frequency: nouns for titles,
// nouns, verbs and adjectives for descriptions.
type vocab struct {
	nouns, words *sampler
}

// sampler draws words in proportion to their dictionary frequency.
type sampler struct {
	words []string
	cum   []int64
}

func (s *sampler) draw(r *rand.Rand) string {
	x := r.Int64N(s.cum[len(s.cum)-1])
	lo, hi := 0, len(s.cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if s.cum[mid] > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return s.words[lo]
}

func (s *sampler) add(w string, f int64) {
	var last int64
	if n := len(s.cum); n > 0 {
		last = s.cum[n-1]
	}
	s.words, s.cum = append(s.words, w), append(s.cum, last+f)
}

var loadVocab = sync.OnceValues(func() (*vocab, error) {
	v := &vocab{nouns: &sampler{}, words: &sampler{}}
	err := jieba.Entries(func(w string, f int64, tag string) {
		n := utf8.RuneCountInString(w)
		if n < 2 || n > 4 || f < 50 || !allHan(w) {
			return
		}
		switch tag {
		case "n", "nz", "vn":
			v.nouns.add(w, f)
			v.words.add(w, f)
		case "v", "a", "ad", "an":
			v.words.add(w, f)
		}
	})
	if err == nil && (len(v.nouns.words) == 0 || len(v.words.words) == 0) {
		err = fmt.Errorf("jieba dictionary: no nouns")
	}
	return v, err
})

func allHan(w string) bool {
	for _, r := range w {
		if r < 0x4E00 || r > 0x9FD5 {
			return false
		}
	}
	return true
}

// Products generates a Chinese e-commerce corpus: titles and descriptions
// of dictionary words drawn by jieba's frequencies, a brand, a category, a
// price, a stock and a rating. The same seed gives the same documents.
type Products struct {
	v *vocab
	r *rand.Rand
	b strings.Builder
}

// NewProducts returns a generator.
func NewProducts(seed uint64) (*Products, error) {
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	return &Products{v: v, r: rand.New(rand.NewPCG(seed, 0x70726f6475637473))}, nil
}

// product is a generated document's fields, in the order they are written.
type product struct {
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Brand       string  `json:"brand"`
	Category    string  `json:"category"`
	Price       float64 `json:"price"`
	Stock       int64   `json:"stock"`
	Rating      float64 `json:"rating"`
}

// Next fills d with document n (from 1).
func (p *Products) Next(d *Doc, n int64) {
	r := p.r
	cat := Categories[int(float64(len(Categories))*r.Float64()*r.Float64())] // some categories are larger
	brand := brands[r.IntN(len(brands))]
	p.b.Reset()
	p.b.WriteString(brand)
	for k := 2 + r.IntN(3); k > 0; k-- {
		p.b.WriteString(p.v.nouns.draw(r))
	}
	p.b.WriteString(cat)
	title := p.b.String()
	p.b.Reset()
	for k := 8 + r.IntN(16); k > 0; k-- {
		p.b.WriteString(p.v.words.draw(r))
		if r.IntN(6) == 0 {
			p.b.WriteString("，")
		}
	}
	p.b.WriteString("。")
	pr := product{Title: title, Description: p.b.String(), Brand: brand, Category: cat,
		Price:  float64(int64(10*(5+r.ExpFloat64()*300))) / 10,
		Stock:  r.Int64N(1000),
		Rating: float64(10+r.IntN(41)) / 10}
	d.ID, d.Line = strconv.FormatInt(n, 10), n
	d.JSON, _ = json.Marshal(pr)
	d.Fields = map[string]any{"title": pr.Title, "description": pr.Description, "brand": pr.Brand, "category": pr.Category,
		"price": pr.Price, "stock": float64(pr.Stock), "rating": pr.Rating}
}
