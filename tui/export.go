package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// y copies what the screen is about through the terminal (OSC 52), o opens
// it in $PAGER: a sample as the JSON report writes it, the detail page as
// drawn (o), or the raw judge calls.

// maxClipboard bounds what y sends: terminals cut OSC 52 payloads short
// past about 100 KB, and half a JSON document is worse than a refusal.
const maxClipboard = 100 << 10

// export is the text y and o act on.
type export struct {
	what string // for the status line: "sample 3 as JSON"
	file string // the temporary file's name pattern for the pager
	text string
}

// exportRow is the row whose sample y and o take out, nil on other screens.
func (m *Model) exportRow() *row {
	switch m.screen {
	case screenTable:
		if p, ok := m.cursorRow(); ok {
			return m.rows[p]
		}
	case screenDetail:
		return m.rows[m.detail.row]
	}
	return nil
}

// copyBlocked is why y and o do nothing here, "" when they act; it only
// looks, as the footer asks every frame.
func (m *Model) copyBlocked() string {
	switch m.screen {
	case screenTable, screenDetail:
		r := m.exportRow()
		_, onConv, _ := m.cursorConv() // the cursor is on a conversation's own line
		switch {
		case r == nil && onConv:
			return "a conversation's line is no sample: expand it (→) and copy a turn"
		case r == nil:
			return "no sample is shown to copy"
		case !r.done:
			return fmt.Sprintf("sample %d is still being evaluated; its result can be copied when it has finished", r.index)
		}
		return ""
	case screenRaw:
		r := &m.raw
		switch {
		case r.loading:
			return "the raw calls are still being read from the cache"
		case r.err != nil:
			return "the raw calls could not be read: " + r.err.Error()
		}
		return r.note
	}
	return "nothing here to copy or open; y and o work in the table, a sample and its raw calls"
}

// exportable is the screen's export when copyBlocked is ""; forCopy (y)
// takes the raw calls as stored JSON and a detail page's sample as JSON.
func (m *Model) exportable(forCopy bool) (export, error) {
	if m.screen == screenRaw {
		r := &m.raw
		e := export{what: fmt.Sprintf("the raw judge calls of sample %d", r.sample),
			file: fmt.Sprintf("ragscope-sample-%d-calls-*.txt", r.sample), text: r.text}
		if r.json != nil && forCopy {
			e.what, e.text = fmt.Sprintf("the raw judge calls of sample %d as JSON", r.sample), string(r.json)
		}
		return e, nil
	}
	r := m.exportRow()
	res := m.result(r)
	if res == nil {
		return export{}, fmt.Errorf("sample %d is not in memory and could not be read from the store", r.index)
	}
	if m.screen == screenDetail && !forCopy {
		return m.detailExport(r), nil
	}
	var b bytes.Buffer
	if err := report.WriteSampleJSON(&b, res, m.st.levels); err != nil {
		return export{}, fmt.Errorf("cannot encode sample %d: %w", r.index, err)
	}
	return export{what: fmt.Sprintf("sample %d as JSON", r.index),
		file: fmt.Sprintf("ragscope-sample-%d-*.json", r.index), text: b.String()}, nil
}

// detailExport is the detail page of row r as plain text.
func (m *Model) detailExport(r *row) export {
	m.ensureDetail()
	title := fmt.Sprintf("sample %d", r.index)
	if id := r.id(); id != "" {
		title += " (id " + sanitize.Line(id) + ")"
	}
	lines := mapped(m.detail.lines, func(l string) string { return strings.TrimRight(ansi.Strip(l), " ") })
	return export{what: fmt.Sprintf("the page of sample %d", r.index),
		file: fmt.Sprintf("ragscope-sample-%d-page-*.txt", r.index), text: strings.Join(append([]string{title, ""}, lines...), "\n") + "\n"}
}

// copyExport is y.
func (m *Model) copyExport() tea.Cmd {
	e, cmd, ok := m.readyExport(true, m.copyExport)
	if !ok {
		return cmd
	}
	if len(e.text) > maxClipboard {
		m.setError(fmt.Sprintf("%s is %s, too large to copy through the terminal (OSC 52 is cut short past %s); press o to open it in $PAGER",
			e.what, byteSize(len(e.text)), byteSize(maxClipboard)))
		return nil
	}
	m.setStatus(fmt.Sprintf("copied %s (%s) to the clipboard through the terminal (OSC 52)", e.what, byteSize(len(e.text))))
	return tea.SetClipboard(e.text)
}

// openPager is o: the file is written and the pager found in a command,
// then the pager gets the terminal through m.exec.
func (m *Model) openPager() tea.Cmd {
	e, cmd, ok := m.readyExport(false, m.openPager)
	if !ok {
		return cmd
	}
	text := sanitize.Text(e.text)
	return func() tea.Msg {
		path, err := writeTemp(e.file, text)
		var c *exec.Cmd
		if err == nil {
			if c, err = pagerCommand(path, os.Getenv, exec.LookPath); err != nil {
				err = errors.Join(err, removeTemp(path))
			}
		}
		return reply(func() tea.Cmd {
			if err != nil {
				m.setError("cannot open the pager: " + err.Error())
				return nil
			}
			return m.runChild(c, func(err error) tea.Msg {
				removeErr := removeTemp(path)
				return reply(func() tea.Cmd { return m.pagerDone(path, err, removeErr) })
			})
		})
	}
}

// runChild runs the pager or the editor in the terminal with the
// environment less its secrets: neither needs the judge's key.
func (m *Model) runChild(c *exec.Cmd, cb tea.ExecCallback) tea.Cmd {
	c.Env = childEnv(os.Environ(), m.opts.KeyVar)
	return m.exec(c, cb)
}

// childEnv is env without the variables that hold a key or a secret: the
// judge's (OPENAI_API_KEY, keyVar, the one a profile named) and any other
// named so.
func childEnv(env []string, keyVar string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if name == keyVar || strings.HasSuffix(up, "KEY") || strings.Contains(up, "API_KEY") || strings.Contains(up, "SECRET") ||
			strings.Contains(up, "TOKEN") || strings.Contains(up, "PASSWORD") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// writeTemp writes text to a new file only the user can read (0600).
func writeTemp(pattern, text string) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", errors.Join(err, removeTemp(f.Name()))
	}
	return f.Name(), nil
}

func removeTemp(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// pagerDone shows what went wrong with the pager, if anything; the file
// is gone by then.
func (m *Model) pagerDone(path string, err, removeErr error) tea.Cmd {
	var errs []string
	if err != nil {
		errs = append(errs, "the pager failed: "+err.Error())
	}
	if removeErr != nil {
		errs = append(errs, "cannot remove "+path+": "+removeErr.Error())
	}
	if len(errs) > 0 {
		m.setError(strings.Join(errs, "; "))
	}
	return nil
}

// pagerCommand is how o shows a file: $PAGER (with its arguments), else
// less; a missing pager is an error before the terminal is handed over.
func pagerCommand(path string, getenv func(string) string, lookPath func(string) (string, error)) (*exec.Cmd, error) {
	if p := strings.TrimSpace(getenv("PAGER")); p != "" {
		name := strings.Fields(p)[0]
		if _, err := lookPath(name); err != nil && !strings.Contains(name, "=") {
			return nil, errors.New("$PAGER=" + p + ": " + name + " not found in PATH; set $PAGER to an installed pager")
		}
		return envCommand("PAGER", p, path, lookPath)
	}
	bin, err := lookPath("less")
	if err != nil {
		return nil, errors.New("no pager: less is not installed; set $PAGER to the pager you use")
	}
	return exec.Command(bin, path), nil
}

// byteSize is a size as people read it: 812 B, 4.2 KB, 1.3 MB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// readyExport is what y (forCopy) or o takes out; without it, cmd is what
// happens instead: the sample read from the store first, then again, or
// nothing (refused, or failed, the error shown).
func (m *Model) readyExport(forCopy bool, again func() tea.Cmd) (e export, cmd tea.Cmd, ok bool) {
	if m.refused(m.copyBlocked()) {
		return e, nil, false
	}
	if r := m.exportRow(); m.screen != screenRaw {
		reading := fmt.Sprintf("reading sample %d from the store%s", r.index, m.g.ellipsis)
		if cmd = m.loadCmd(r, again); cmd != nil {
			m.setStatus(reading)
			return e, cmd, false
		}
		if m.status.text == reading {
			m.clearStatus() // read: what happens next says so itself
		}
	}
	e, err := m.exportable(forCopy)
	if err != nil {
		m.setError(err.Error())
	}
	return e, nil, err == nil
}

// editorCommand builds the command that edits path, the way git picks its
// editor: $VISUAL, then $EDITOR, then vi, then nano.
func editorCommand(path string, getenv func(string) string, lookPath func(string) (string, error)) (*exec.Cmd, error) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		ed := strings.TrimSpace(getenv(v))
		if ed == "" {
			continue
		}
		c, err := envCommand(v, ed, path, lookPath)
		if err != nil {
			return nil, errors.New(err.Error() + "; set $VISUAL or $EDITOR to an installed editor")
		}
		return c, nil
	}
	for _, ed := range []string{"vi", "nano"} {
		if bin, err := lookPath(ed); err == nil {
			return exec.Command(bin, path), nil
		}
	}
	return nil, errors.New("no editor: set $VISUAL or $EDITOR (neither vi nor nano is installed)")
}

// defaultEditorCommand is editorCommand for the real environment.
func defaultEditorCommand(path string) (*exec.Cmd, error) {
	return editorCommand(path, os.Getenv, exec.LookPath)
}

// envCommand runs the command the variable v holds (value, not blank) on
// path. The value may carry arguments, so it goes through sh, with the
// path a separate argument never spliced into the script.
func envCommand(v, value, path string, lookPath func(string) (string, error)) (*exec.Cmd, error) {
	if sh, err := lookPath("sh"); err == nil {
		return exec.Command(sh, "-c", value+` "$@"`, value, path), nil
	}
	f := strings.Fields(value) // no shell: split on spaces
	bin, err := lookPath(f[0])
	if err != nil {
		return nil, errors.New("$" + v + "=" + value + ": " + f[0] + " not found in PATH")
	}
	return exec.Command(bin, append(f[1:], path)...), nil
}
