package prompts

import (
	"strconv"
	"strings"
	"text/template"
)

func funcMap() template.FuncMap {
	return template.FuncMap{
		"trim":     strings.TrimSpace,
		"numbered": numbered,
		"chunks":   chunks,
	}
}

// numbered renders statements as "1. …" lines. The judge must answer one
// entry per number, so a statement spanning lines is indented under its
// number rather than allowed to look like a new item.
func numbered(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeItem(&b, strconv.Itoa(i+1)+". ", it)
	}
	return b.String()
}

// chunks renders ranked chunks as "[k] …" blocks separated by a blank line,
// so reasons can cite a chunk by its rank.
func chunks(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n\n")
		}
		writeItem(&b, "["+strconv.Itoa(i+1)+"] ", it)
	}
	return b.String()
}

func writeItem(b *strings.Builder, prefix, text string) {
	b.WriteString(prefix)
	pad := strings.Repeat(" ", len(prefix))
	for j, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if j > 0 {
			b.WriteByte('\n')
			if strings.TrimSpace(line) != "" {
				b.WriteString(pad)
			}
		}
		b.WriteString(strings.TrimRight(line, " \t\r"))
	}
}
