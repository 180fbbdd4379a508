package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/sanitize"
)

// rawView shows the raw judge calls of one sample, read from the cache in
// a command because that is I/O.
type rawView struct {
	sample  int
	loading bool
	text    string // the calls as read and shown; what o pages
	json    []byte // the calls as stored (request and reply), what y copies; nil without RawCallsJSON
	note    string // instead of text: why there are no calls to show
	err     error
	lines   []string
	scroll  int
}

type rawCallsMsg struct {
	sample int
	text   string
	json   []byte
	err    error
}

func (r *rawView) scrollBy(n, page int) {
	r.scroll = min(max(r.scroll+n, 0), r.maxScroll(page))
}

func (r *rawView) maxScroll(page int) int { return max(len(r.lines)-page, 0) }

func (m *Model) openRaw() tea.Cmd {
	row := m.rows[m.detail.row]
	m.screen = screenRaw
	m.raw = rawView{sample: row.index}
	res := m.result(row)
	switch {
	case !row.done:
		m.raw.note = "This sample is still being evaluated."
		return nil
	case res == nil:
		// x is pressed on the detail page, which read the result; it
		// is missing only when that read failed or is still going.
		m.raw.note = "The sample's result has not been read from the store (yet); go back and open it again."
		return nil
	case len(res.Calls) == 0:
		m.raw.note = "No judge calls were recorded for this sample (the offline judge makes none)."
		return nil
	case m.opts.RawCalls == nil:
		m.raw.note = "no cache for this run"
		return nil
	}
	keys := make([]string, 0, len(res.Calls))
	for _, c := range res.Calls {
		keys = append(keys, c.Key)
	}
	m.raw.loading = true
	fetch, fetchJSON, sample := m.opts.RawCalls, m.opts.RawCallsJSON, row.index
	return func() tea.Msg {
		text, err := fetch(keys)
		var js []byte
		if err == nil && fetchJSON != nil {
			js, err = fetchJSON(keys)
		}
		return rawCallsMsg{sample: sample, text: text, json: js, err: err}
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
		text := r.text
		if r.note != "" {
			text = r.note
		}
		// wrap hangs the continuation of each line under its indent, so a
		// long message stays under its [role] heading.
		r.lines = wrap(text, max(m.width-2, 10))
		for i, l := range r.lines {
			r.lines[i] = "  " + l
		}
	}
	r.scrollBy(0, m.pageHeight())
}

func (m *Model) rawKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	m.ensureRaw()
	r := &m.raw
	page := m.pageHeight()
	if k.scroll(msg, r.scrollBy, page, len(r.lines)) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Raw):
		m.screen = screenDetail
	case key.Matches(msg, k.Copy):
		return m.copyExport()
	case key.Matches(msg, k.Pager):
		return m.openPager()
	}
	return nil
}

func (m *Model) renderRaw() []string {
	m.ensureRaw()
	r := &m.raw
	page := m.pageHeight()
	lines := []string{m.st.title.Render("ragscope") + " " + m.st.bold.Render(sprintf("sample %d", r.sample)) +
		m.st.muted.Render(m.g.sep+"raw judge calls")}
	end := min(r.scroll+page, len(r.lines))
	lines = append(lines, r.lines[r.scroll:end]...)
	return m.finish(lines, m.keyMode().help())
}
