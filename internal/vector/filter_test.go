package vector

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reference's conformance table (tairvector.md §4).
var people = []struct{ name, age string }{
	{"Aaron", "12"}, {"Bob", "33"}, {"Charlie", "29"}, {"Daniel", "23"}, {"Eason", "22"},
	{"Fabian", "35"}, {"George", "12"}, {"Henry", "30"}, {"Ivan", "16"}, {"James", "12"},
}

func matching(t *testing.T, expr string) []string {
	t.Helper()
	f, err := ParseFilter(expr)
	require.NoError(t, err, expr)
	var out []string
	for i, p := range people {
		attrs := func(n string) (string, bool) {
			switch n {
			case "name":
				return p.name, true
			case "age":
				return p.age, true
			}
			return "", false
		}
		if f.Match(attrs) {
			out = append(out, strconv.Itoa(i))
		}
	}
	sort.Strings(out)
	return out
}

func TestFilterConformance(t *testing.T) {
	cases := map[string]string{
		"age>30":                             "1 5",
		"age > 30":                           "1 5",
		"age<20":                             "0 6 8 9",
		`name>"H"`:                           "7 8 9",
		`name=="Henry"`:                      "7",
		`name == "Henry" || age >= 35`:       "5 7",
		`!(age<20) && name != "Bob"`:         "2 3 4 5 7",
		"age * 2 + 1 > 60 - 1":               "1 5 7",
		"age / 0 > 1":                        "",
		"missing > 1":                        "",
		"!(missing > 1)":                     "0 1 2 3 4 5 6 7 8 9",
		"-age < -30":                         "1 5",
		"(age>=12) && (age<=12)":             "0 6 9",
		`name < "B" || name > "J" && age<13`: "0 9",
	}
	for expr, want := range cases {
		assert.Equal(t, want, strings.Join(matching(t, expr), " "), expr)
	}
}

func TestFilterErrors(t *testing.T) {
	for _, bad := range []string{"", "age >", "(age > 1", `name == "x`, "age > 1 )", "age >> 1", "1e", "@", strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100)} {
		_, err := ParseFilter(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"age>30", `name=="Henry"`, "!(a<1) && b >= 2 || c", "-x*2/3+1 != 4", `"a"<"b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil {
			return
		}
		_ = flt.Match(func(string) (string, bool) { return "1", true })
		_ = flt.Match(func(string) (string, bool) { return "", false })
	})
}
