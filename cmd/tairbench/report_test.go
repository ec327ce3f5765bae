package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// chromium runs headless Chromium on page with the extra flags and returns
// its standard output and standard error.
func chromium(t *testing.T, page string, flags ...string) (stdout, stderr string) {
	bin := testenv.Chromium(t)
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.Command(bin, append(args, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	return out.String(), errb.String()
}

// TestReportInABrowser renders an HTML report of real results (closed-loop,
// pipelined, open-loop with its corrected curve, a whitepaper suite) and
// opens it in headless Chromium: no console error, every chart drew data,
// and the screenshot is not blank.
func TestReportInABrowser(t *testing.T) {
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)
	dir := t.TempDir()
	var files []string
	for i, extra := range [][]string{{}, {"-P", "16"}, {"--rate", "3000"}} {
		p := filepath.Join(dir, "run"+strconv.Itoa(i)+".json")
		args := append([]string{"redis", "-port", port, "-d", "3", "-p", "2", "-r", "1000", "-command", "SET k-__RAND__ v", "-q", "--json", p}, extra...)
		out, err := exec.Command(binary(t), args...).CombinedOutput()
		require.NoError(t, err, string(out))
		files = append(files, p)
	}
	suite := filepath.Join(dir, "enhanced.json")
	out, err := exec.Command(binary(t), "suite", "enhanced", "--requests", "2000", "--sizes", "64", "--json", suite).CombinedOutput()
	require.NoError(t, err, string(out))
	files = append(files, suite)

	page := filepath.Join(dir, "report.html")
	out, err = exec.Command(binary(t), append(append([]string{"report"}, files...), "-o", page)...).CombinedOutput()
	require.NoError(t, err, string(out))
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, string(raw), "nothing loaded from the network")

	dom, logs := chromium(t, page, "--dump-dom")
	// The page writes nothing to the console: any console line (an uncaught
	// error prints as one) fails the test.
	for _, l := range strings.Split(logs, "\n") {
		assert.NotRegexp(t, `:CONSOLE[:(]|Uncaught `, l, "a console message")
	}
	charts := strings.Count(dom, `class="chart"`)
	assert.GreaterOrEqual(t, charts, 5, "percentiles, throughput, latency, errors and the server's count")
	assert.Equal(t, charts, strings.Count(dom, `data-rendered="yes"`), "every chart drew data")
	assert.Contains(t, dom, "charts rendered: "+strconv.Itoa(charts)+" of "+strconv.Itoa(charts))
	assert.Contains(t, dom, "from the intended start", "the open-loop run's corrected curve")
	assert.Regexp(t, regexp.MustCompile(`measured ÷ published`), dom, "the suite's ratio bars")

	shot := filepath.Join(dir, "report.png")
	chromium(t, page, "--window-size=1200,2400", "--screenshot="+shot)
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	colors := map[[3]uint32]bool{}
	dark := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if r>>8 < 200 || g>>8 < 200 || b>>8 < 200 {
				dark++
			}
		}
	}
	assert.Greater(t, len(colors), 20, "a screenshot with text and charts, not a blank page")
	assert.Greater(t, dark, 2000)

	// Ten results stay under 2 MB.
	var ten []string
	for range 10 {
		ten = append(ten, files[2])
	}
	big := filepath.Join(dir, "ten.html")
	out, err = exec.Command(binary(t), append(append([]string{"report"}, ten...), "-o", big)...).CombinedOutput()
	require.NoError(t, err, string(out))
	st, err := os.Stat(big)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(2<<20), "a report of 10 results under 2 MB")
}

// TestOnePointBitmapReportInABrowser renders the report of a one-point
// bitmap comparison and a Chinese search track in headless Chromium: it
// leads with the operations table, every chart drew (its single point as
// a marker), none is named empty, and Chinese text draws as text with the
// page's font stack (data-cjk, from a canvas check against a missing
// glyph's box; install-deps installs a CJK font).
func TestOnePointBitmapReportInABrowser(t *testing.T) {
	dir := t.TempDir()
	bm := filepath.Join(dir, "bitmap.json")
	out, err := exec.Command(binary(t), "bitmap", "compare", "--cardinality", "1000", "--universe", "2^20", "--ops", "count,and-card-2",
		"--duration", "0.3", "-c", "2", "--json", bm).CombinedOutput()
	require.NoError(t, err, string(out))
	track := filepath.Join(dir, "track.json")
	out, err = exec.Command(binary(t), "search", "run", "ecommerce-zh", "--embedded", "--docs", "300", "--duration", "200ms",
		"--quiet", "--json", track).CombinedOutput()
	require.NoError(t, err, string(out))
	page := filepath.Join(dir, "report.html")
	out, err = exec.Command(binary(t), "report", bm, track, "-o", page).CombinedOutput()
	require.NoError(t, err, string(out))

	dom, logs := chromium(t, page, "--dump-dom")
	for _, l := range strings.Split(logs, "\n") {
		assert.NotRegexp(t, `:CONSOLE[:(]|Uncaught `, l, "a console message")
	}
	charts := strings.Count(dom, `class="chart"`)
	require.Positive(t, charts)
	assert.Equal(t, charts, strings.Count(dom, `data-rendered="yes"`), "every chart drew data")
	assert.Contains(t, dom, fmt.Sprintf(`<p id="check" class="meta">charts rendered: %d of %d</p>`, charts, charts), "no chart is named empty")
	assert.Contains(t, dom, "against cardinality")
	assert.Contains(t, dom, "operations, closed loop: mean ms / p99 ms / ops/s")
	assert.Contains(t, dom, `data-cjk="yes"`, "Chinese text draws as text, not boxes (is a CJK font installed? scripts/install-deps.sh installs one)")
}
