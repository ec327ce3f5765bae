package htmlreport

import (
	"fmt"
	"html"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
)

// writeTable draws a verdict table as the terminal prints it: its title,
// its rows, its notes.
func writeTable(b *strings.Builder, t report.Table) {
	fmt.Fprintf(b, "<p class=\"meta\"><b>%s</b></p><table class=\"verdict\"><tr>", html.EscapeString(t.Title))
	for _, h := range t.Header {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	writeNotes(b, t.Notes)
}

// writeNotes lists notes (nothing when there are none).
func writeNotes(b *strings.Builder, notes []string) {
	if len(notes) == 0 {
		return
	}
	b.WriteString(`<ul class="notes">`)
	for _, n := range notes {
		fmt.Fprintf(b, "<li>%s</li>", html.EscapeString(n))
	}
	b.WriteString("</ul>")
}
