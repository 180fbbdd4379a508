package tui

import (
	"cmp"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// rawView shows the raw judge calls of one sample, read in a command.
type rawView struct {
	sample   int
	loading  bool
	text     string // the calls as read and shown; what o pages
	json     []byte // the calls as stored (request and reply), what y copies; nil without RawCallsJSON
	note     string // instead of text: why there are no calls to show
	err      error
	scrolled // the page: lines nil until built (and after a resize)
}

// scrolled is what the detail and the raw pages share: their lines, shown
// a page at a time from scroll.
type scrolled struct {
	lines    []string
	sections []int // first line of each section: the last may scroll to the top
	scroll   int   // kept within the page once the lines are built
}

// scrollBy scrolls n lines, as far as a page page lines high scrolls.
func (s *scrolled) scrollBy(n, page int) {
	s.scroll = max(s.scroll+n, 0)
	if s.lines != nil {
		s.scroll = min(s.scroll, s.maxScroll(page))
	}
}

// view is the page page lines high from scroll, each line without the
// spaces that end it.
func (s *scrolled) view(page int) []string {
	out := make([]string, page)
	for i := range out {
		if s.scroll+i < len(s.lines) {
			out[i] = strings.TrimRight(s.lines[s.scroll+i], " ")
		}
	}
	return out
}

// lineWidth is the widest of lines, in cells.
func lineWidth(lines []string) int {
	return widest(lines, 0, ansi.StringWidth)
}

func (s *scrolled) maxScroll(page int) int {
	limit := max(len(s.lines)-page, 0)
	if k := len(s.sections); k > 0 {
		limit = max(limit, s.sections[k-1])
	}
	return limit
}

func (m *Model) openRaw() tea.Cmd {
	row := m.rows[m.detail.row]
	m.screen = screenRaw
	m.raw = rawView{sample: row.index}
	res := m.result(row)
	switch {
	case !row.done:
		m.raw.note = "This sample is still being evaluated."
	case res == nil: // the detail page's read failed or is still going
		m.raw.note = "The sample's result has not been read from the store (yet); go back and open it again."
	case len(res.Calls) == 0:
		m.raw.note = "No judge calls were recorded for this sample (the offline judge makes none)."
	case m.opts.RawCalls == nil:
		m.raw.note = "no cache for this run"
	}
	if m.raw.note != "" {
		return nil
	}
	keys := mapped(res.Calls, func(c eval.CallRecord) string { return c.Key })
	m.raw.loading = true
	fetch, fetchJSON, sample := m.opts.RawCalls, m.opts.RawCallsJSON, row.index
	var js []byte // written by the command, read once it has returned
	return inCommand(func() (string, error) {
		text, err := fetch(keys)
		if err == nil && fetchJSON != nil {
			js, err = fetchJSON(keys)
		}
		return text, err
	}, func(text string, err error) tea.Cmd {
		if r := &m.raw; r.sample == sample {
			r.loading, r.lines = false, nil
			r.text, r.json, r.err = text, js, err
		}
		return nil
	})
}

func (m *Model) ensureRaw() {
	r := &m.raw
	switch {
	case r.lines != nil:
	case r.loading:
		r.lines = []string{m.st.muted.Render("  reading the cache...")}
	case r.err != nil:
		r.lines = []string{m.st.errorLine.Render("  cannot read the raw calls: " + sanitize.Line(r.err.Error()))}
	default:
		r.lines = mapped(wrap(cmp.Or(r.note, r.text), max(m.width-2, 10)), func(l string) string { return "  " + l })
	}
	r.scrollBy(0, m.pageHeight())
}

func (m *Model) rawKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	m.ensureRaw()
	switch {
	case k.scroll(msg, m.raw.scrollBy, m.pageHeight(), len(m.raw.lines)):
	case key.Matches(msg, k.Back, k.Raw):
		m.screen = screenDetail
	}
	return nil
}

func (m *Model) renderRaw() []string {
	m.ensureRaw()
	r := &m.raw
	lines := append([]string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(fmt.Sprintf("sample %d", r.sample)) +
		m.st.muted.Render(m.g.sep+"raw judge calls")}, r.view(m.pageHeight())...)
	return m.finish(lines)
}
