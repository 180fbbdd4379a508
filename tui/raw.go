package tui

import (
	"cmp"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
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

// scrolled is what the detail and the raw pages share: their lines in a
// viewport, and the offset a rebuilt page keeps.
type scrolled struct {
	lines    []string
	sections []int // first line of each section: the last may scroll to the top
	width    int   // the width the lines were built for
	scroll   int
	vp       viewport.Model
	page     int  // the height the viewport's content was laid out for
	loaded   bool // the viewport holds lines for page
}

// scrollBy scrolls n lines, loading the viewport for page first if need be.
func (s *scrolled) scrollBy(n, page int) {
	if s.lines == nil {
		s.scroll = max(s.scroll+n, 0) // clamped when the page is built
		return
	}
	if !s.loaded || s.page != page {
		s.load(page)
	}
	s.vp.SetYOffset(s.scroll + n)
	s.scroll = s.vp.YOffset()
}

// load puts the lines in the viewport, page lines high and as wide as the
// widest line: the frame, not the viewport, cuts (and marks) a long line.
// Padding lets every jump put its section's heading on the first line.
func (s *scrolled) load(page int) {
	content := s.lines
	if k := len(s.sections); k > 0 && s.sections[k-1]+page > len(content) {
		content = append(slices.Clip(content), make([]string, s.sections[k-1]+page-len(content))...)
	}
	s.vp.SetWidth(max(s.width, lineWidth(content), 1))
	s.vp.SetHeight(page)
	s.vp.SetContentLines(content)
	s.vp.SetYOffset(s.scroll)
	s.scroll = s.vp.YOffset()
	s.page, s.loaded = page, true
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
	return func() tea.Msg {
		text, err := fetch(keys)
		var js []byte
		if err == nil && fetchJSON != nil {
			js, err = fetchJSON(keys)
		}
		return reply(func() tea.Cmd {
			if r := &m.raw; r.sample == sample {
				r.loading, r.lines = false, nil
				r.text, r.json, r.err = text, js, err
			}
			return nil
		})
	}
}

func (m *Model) ensureRaw() {
	r := &m.raw
	if r.lines != nil {
		return
	}
	switch {
	case r.loading:
		r.lines = []string{m.st.muted.Render("  reading the cache...")}
	case r.err != nil:
		r.lines = []string{m.st.errorLine.Render("  cannot read the raw calls: " + sanitize.Line(r.err.Error()))}
	default:
		r.lines = mapped(wrap(cmp.Or(r.note, r.text), max(m.width-2, 10)), func(l string) string { return "  " + l })
	}
	r.load(m.pageHeight())
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
	if page := m.pageHeight(); r.page != page {
		r.load(page)
	}
	lines := append([]string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(fmt.Sprintf("sample %d", r.sample)) +
		m.st.muted.Render(m.g.sep+"raw judge calls")}, viewLines(&r.vp)...)
	return m.finish(lines)
}
