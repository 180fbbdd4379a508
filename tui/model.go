// Package tui is ragscope's terminal interface: one root model that holds
// the layout, the focus and the run's state; the table, the header, the
// detail page and the dialogs are plain components that render into it.
// It consumes the runner's event stream and never does I/O in Update.
package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Options configure the interface. The CLI fills them for `ragscope run`
// (Live, events from the runner), for a run evaluated elsewhere (Live and
// Attached, events from watching it) and for `ragscope open` (Results, no
// events).
type Options struct {
	Dataset string
	Total   int // samples to evaluate (0 when unknown yet)
	Judge   eval.JudgeInfo
	Metrics []eval.Metric
	// Criteria are the names of the run's own criteria (eval/criteria), in
	// file order, scored under eval.Metric(name) like metrics: each has a
	// column after the metrics', a filter term NAME<X and a section of the
	// detail page. CriteriaPass is each one's pass level (the file's
	// pass): a score below it is red and marks the row low.
	Criteria     []string
	CriteriaPass map[string]float64
	// Levels are the pass levels the diagnosis, the score colours and the
	// table's marks follow (--pass, or those the run was recorded with).
	Levels report.Levels
	ASCII  bool // --ascii or RUNEWIDTH_EASTASIAN=1: no ambiguous-width glyphs
	Live   bool // a run is in progress: q asks before quitting it
	// Attached is a live run that another process (or a server) runs; the
	// interface only watches it. q leaves at once and the run keeps going
	// (see LeftRunning); X asks, then stops it through Cancel.
	Attached bool
	// QuitHelp, when set, is what the footer says q does to an Attached
	// run, for a screen whose quitting means more than leaving it (a
	// watcher's own screen: q stops the watcher).
	QuitHelp string
	Results  []*eval.Result
	// Page reads a stored run page by page (as cache.Store.RunPage: at
	// most limit results from sample index from on, next -1 after the
	// last) into the table, which is drawn from the first page on; nil
	// when the results are given or arrive as events.
	Page func(from, limit int) (page []*eval.Result, next int, err error)
	// Summaries, when set with Load, reads the pages instead of Page: it
	// calls fn with each result of the page with only what a row needs
	// (as cache.DB.RunSummaries), a value fn may not keep, whose ID,
	// Question and Answer are valid only during the call; it spares
	// decoding what the table does not show.
	Summaries func(from, limit int, fn func(*eval.Result) error) (next int, err error)
	// Load reads one sample's full result when it is opened (detail, raw
	// calls, y and o): the rows keep only what the table shows. nil: every
	// result given or streamed is kept in memory.
	Load     func(index int) (*eval.Result, error)
	Started  time.Time
	RawCalls func(keys []string) (string, error) // renders raw judge calls for `x`; nil: no cache
	// RawCallsJSON gives the same calls as stored (request and reply, as
	// JSON), what y copies in the raw view; nil: y copies the text.
	RawCallsJSON func(keys []string) ([]byte, error)
	// Cancel stops the live run. It is called when the user quits a run of
	// this process; for an Attached run only when the user confirms X, and
	// from a command, as stopping another process's run may take I/O. nil:
	// the run cannot be stopped from here.
	Cancel func()
	Banner string // one line under the header
	RunID  string // the run shown (the parent of a re-run)
	Host   Host   // prompt workflow; nil turns it off
	// Labels stores the human labels of judged items (labels.go); nil
	// turns labelling off.
	Labels LabelHost
	// Limit, when set, says how the judge endpoint is holding back ("rate
	// limited: 12 in flight of 64, paused 1.0s"), "" when it is not; read
	// once a second while the run is live.
	Limit func() string
	// Watch, when set, makes the run screen follow a live log (see
	// watch.go): rows arrive at the top, the header draws each metric's
	// rolling mean over time, the lag behind the log and the alerts. It is
	// read once a second while the run is live, in Update, so it must
	// return at once: the watcher's last snapshot, not a question to it
	// (the watcher's Status, or the holder's copy of it for an attach).
	Watch func() report.WatchStatus
	// Pricing prices the tokens the header counts (the run record's); nil:
	// the header shows no cost (a run recorded before costs were).
	Pricing *report.Pricing
	// First, when set, holds the run back until its cost is known
	// (--confirm-over): the interface opens on the cost page, and the
	// run's events, Cancel and Started come from First.Start, not from
	// Run's events and these options.
	First *FirstRun
}

type screen int

const (
	screenTable screen = iota
	screenDetail
	screenRaw
	screenPrompts
	screenRuns
	screenBudget // the cost of a run held back by --confirm-over

	// screenAgreement is the judge against the human labels (agreement.go).
	screenAgreement
)

// screenParts is a screen: how it draws, what its keys do and which keys
// it has (its keyMode, what its footer and ? page show).
type screenParts struct {
	render func(*Model) []string
	key    func(*Model, tea.KeyPressMsg) tea.Cmd
	mode   func(*Model) keyMode
}

// parts is the screen's; a switch rather than a table, which would refer
// to itself through the functions it holds.
func (s screen) parts() screenParts {
	switch s {
	case screenDetail:
		return screenParts{(*Model).renderDetail, (*Model).detailKey, (*Model).detailMode}
	case screenRaw:
		return screenParts{(*Model).renderRaw, (*Model).rawKey, (*Model).rawMode}
	case screenPrompts:
		return screenParts{(*Model).renderPrompts, (*Model).promptsKey, (*Model).promptsMode}
	case screenRuns:
		return screenParts{(*Model).renderRuns, (*Model).runsKey, (*Model).pickerMode}
	case screenBudget:
		return screenParts{(*Model).renderBudget, (*Model).budgetKey, (*Model).budgetMode}
	case screenAgreement:
		return screenParts{(*Model).renderAgreement, (*Model).agreementKey, (*Model).agreementMode}
	}
	return screenParts{(*Model).renderTable, (*Model).tableKey, (*Model).tableMode}
}

// Minimum usable size; below it the screen says so instead of drawing a
// layout nobody can read.
const (
	minWidth  = 60
	minHeight = 15
)

// Model is the root model. It implements tea.Model.
type Model struct {
	opts  Options
	keys  keyMap
	st    styles
	g     glyphs
	help  help.Model
	now   func() time.Time
	input textinput.Model

	width, height int

	metrics []eval.Metric
	// columns are the scores the table shows: the metrics, then the
	// criteria (styles.crit).
	columns []eval.Metric
	rows    []*row
	slab    rowSlab // where upsert takes new rows from
	extras  rowExtras
	byIndex rowIndex
	// full holds the few full results in memory (see results); loading is
	// the one being read by Options.Load.
	full  results
	whole *wholeText  // the filter's search of whole texts
	pace  report.Pace // the first run's pace, for its ETA
	// negative marks the metrics some row scores below 0 (cosines): their
	// columns are wide enough for "-0.257" (scoreWidth).
	negative [eval.NumMetrics]bool
	loading  loadingState
	reading  bool // Options.Page is still filling the table
	running  int  // rows still being evaluated
	live     bool
	ended    time.Time // when the run finished; zero while it runs
	// clock is the elapsed time and ETA as of the last second's tick (see
	// clockParts): the title line changes once a second, not every frame.
	clock clockReading

	// progress counts the first run (stream 0); a re-run counts its own.
	progress progress
	limit    string // the endpoint's limiter, as Options.Limit said last
	notice   string // what the run learned of its endpoint (EventNotice), said last
	// watchStatus is what Options.Watch said last; trends are the rolling
	// means drawn in watch mode, by metric slot (watch.go).
	watchStatus report.WatchStatus
	trends      [eval.NumMetrics]*trend
	// events is the first run's stream, started by Init; send is how its
	// Forward, and a re-run's, reach the program (Run sets it to p.Send).
	events <-chan eval.Event
	send   func(tea.Msg)

	sortKeys []sortKey
	sortIdx  int
	desc     bool
	filter   *filter
	sorted   map[int]sorted // by sortIdx; dropped when rows change
	// pageGiven is how many results the store gave for a page of a
	// stored run, where it was not the last (readPage).
	pageGiven int
	// sortScratch is the sorts' working space, kept between them.
	sortScratch sortScratch
	// sortGen counts the times sorted was dropped; presort is the
	// columns of a stored table being sorted in a command (presort.go).
	sortGen  int
	presort  *presorting
	presorts bool // a presort was started for this table
	shown    []int32
	// lines are what the table draws and the cursor moves over: shown
	// itself, or in a run with conversations their lines and the turns of
	// the expanded ones (convrows.go).
	lines []int32
	// convs are the run's conversations, nil when it has none.
	convs *convs
	// statsFilter is the filter the stats were computed for.
	statsFilter *filter
	statsValid  bool
	stats       stats
	cursor      int // position in shown
	offset      int // first shown row on screen
	// held is what the order shown was built for; while results stream in
	// under the same order it is held (see liveorder.go).
	held heldOrder

	// Deriving (filter+sort+stats) is amortised while events pour in: at
	// most once per deriveEvery for large tables, immediately otherwise.
	dirty           bool
	deriveScheduled bool
	lastDerive      time.Time

	filterErr string
	bar       filterBar // the filter bar while it is open

	screen screen
	// mode is what the keys mean on the screen: its own keys, or an open
	// page, input or question that takes them all (see key).
	mode     mode
	detail   detailView
	raw      rawView
	quitting bool
	// leftRunning: the user quit while an attached run was still going.
	leftRunning bool
	stopAsked   bool // X was confirmed; the attached run is stopping

	// The prompt workflow (see host.go). ctx bounds the Host calls; the
	// program's context when run by Run.
	ctx     context.Context
	runID   string
	status  statusLine
	prompts promptsView
	picker  runPicker
	ask     *question   // the y/n question of modeAsk
	rerun   *rerunState // the re-run in progress, nil when none
	cmp     *compareState
	editor  func(path string) (*exec.Cmd, error)
	exec    execFunc
	// gen tags the replies of Host calls; a reply to a superseded request
	// (the user moved on) is dropped.
	gen int

	// lab is the human-labelling workflow (labels.go).
	lab labelState

	// first is the run held back by Options.First until it starts.
	first *firstRunState
}

// mode is what the keys mean beside the screen's own: each mode but
// modeScreen owns the keyboard until it closes.
type mode int

const (
	modeScreen mode = iota // the screen's keys
	modeHelp               // the ? page of the screen
	modeFilter             // typing in the filter bar
	modeNote               // typing the note of a label
	modeAsk                // a y/n question (Model.ask) takes the next key
)

// shownMode is the mode the screen is drawn in: under a question, the one
// it interrupted, whose page or input stays on screen.
func (m *Model) shownMode() mode {
	if m.mode == modeAsk {
		return m.ask.resume
	}
	return m.mode
}

// New builds the model from the options; results given in opts are shown
// as they are (a stored run), events arrive later through Update.
func New(opts Options) *Model {
	// A run recorded by a newer ragscope may name metrics this one does
	// not know: they get no column (there is no slot for them), and the
	// banner says so instead of the table failing.
	known, unknown := eval.KnownMetrics(opts.Metrics)
	if len(unknown) > 0 {
		note := fmt.Sprintf("this run also has %s, which this ragscope does not know: upgrade to see them", strings.Join(unknown, ", "))
		if opts.Banner != "" {
			note = opts.Banner + "; " + note
		}
		opts.Banner = note
	}
	opts.Metrics = known
	m := &Model{
		opts:    opts,
		keys:    defaultKeys(),
		st:      newStyles(),
		g:       unicodeGlyphs,
		help:    newHelp(),
		now:     time.Now,
		live:    opts.Live,
		metrics: opts.Metrics,
		width:   80,
		height:  24,
		ctx:     context.Background(),
		editor:  defaultEditorCommand,
		exec:    tea.ExecProcess,
		runID:   opts.RunID,
		loading: loadingState{index: -1},
	}
	m.st.crit = newCritSet(opts.Criteria, opts.CriteriaPass)
	m.st.levels = m.st.crit.levels(opts.Levels)
	if len(m.metrics) == 0 {
		m.metrics = append([]eval.Metric(nil), eval.DefaultMetrics...)
	}
	m.columns = slices.Concat(m.metrics, m.st.crit.names)
	m.keys.metricCount(len(m.metrics))
	if opts.ASCII {
		m.g = asciiGlyphs
		m.keys.asciiHelp()
		m.help.Ellipsis = "~"
		m.help.ShortSeparator = " | "
	} else {
		m.help.ShortSeparator = " · "
	}
	m.sortKeys = sortKeys(m.columns, m.slotOf)
	// Newest first: watch mode's own order (watch.go).
	m.desc = m.watchMode()
	m.pollWatch()
	m.input = textinput.New()
	m.input.Prompt = "/ "
	m.input.Placeholder = "f<0.5 ar<0.7 cp=0 status:failed diag:retrieval text"
	m.progress.total = opts.Total
	m.addStored(opts.Results)
	m.reading = opts.Page != nil || opts.Summaries != nil
	m.progress.total = max(m.progress.total, len(m.rows))
	if opts.First != nil {
		// Not live until it starts: q leaves at once, with nothing to stop.
		m.first = &firstRunState{estimating: true}
		m.screen, m.live = screenBudget, false
	}
	m.syncRunKeys()
	m.derive()
	return m
}

// maxFPS caps the renderer. A live run's own changes come at most every
// forwardEvery and the clock once a second, so the cap only bounds how long
// a key waits for its frame: at 120 (Bubble Tea's most) a key's frame goes
// out within 8 ms of its Update, where at 60 the wait alone could take half
// of the 33 ms a key may take on a million rows (scripts/bigopen.sh). A
// held-down key repeats at the terminal's rate, well under 60 a second, and
// an unchanged view is not written again, so the cap does not add bytes.
const maxFPS = 120

// tuiGCPercent is the GC target while the interface runs (see Run): low,
// since the table hardly changes once loaded: collections stay rare and
// the heap stays near the size of the table.
const tuiGCPercent = 20

type tickMsg time.Time
type deriveMsg struct{}

// deriveEvery bounds how often a large table is re-filtered and re-sorted
// while results stream in; a key press always derives at once.
const (
	deriveEvery     = 250 * time.Millisecond
	deriveEagerRows = 20000
)

// Init starts the first run's stream, when Run was given one, and the
// clock of a live run (elapsed and ETA need a repaint even when no event
// arrives).
func (m *Model) Init() tea.Cmd {
	// The terminal's background picks the palette (see setBackground).
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.events != nil {
		cmds = append(cmds, m.stream(m.ctx, 0, m.events))
	}
	if m.reading {
		cmds = append(cmds, m.readPage(0))
	}
	cmds = append(cmds, m.loadMarks())
	if m.first != nil {
		cmds = append(cmds, m.estimateFirst())
	}
	if m.live {
		cmds = append(cmds, tick())
	}
	return tea.Batch(cmds...)
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update handles a message. It never blocks and never does I/O: the raw
// calls of `x` are fetched in a command.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg, ok := msg.(wholeTextMsg); ok {
		m.wholeTextIn(msg)
	}
	tm, cmd := m.update(msg)
	// A filter's text terms may have queued rows to search whole.
	if more := m.wholeTextCmd(); more != nil {
		cmd = tea.Batch(cmd, more)
	}
	return tm, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case wholeTextMsg:
		return m, nil
	case tea.BackgroundColorMsg:
		m.setBackground(msg.IsDark())
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.input.SetWidth(max(msg.Width-4, 10))
		m.clampTable()
		m.detail.invalidate()
		m.raw.lines = nil
		return m, nil
	case EventsMsg:
		return m, m.applyEvents(msg)
	case streamClosedMsg:
		// The first run's end is its EventRunFinished; a stream that closes
		// without one (an attachment lost) says nothing about the run.
		if rr := m.rerun; msg.stream != 0 && rr != nil && rr.gen == msg.stream {
			m.finishRerun()
		}
		return m, nil
	case deriveMsg:
		m.deriveScheduled = false
		if m.dirty {
			m.derive()
		}
		return m, nil
	case tickMsg:
		if m.live {
			m.readClock()
			if m.opts.Limit != nil {
				m.limit = m.opts.Limit()
			}
			m.pollWatch()
			return m, tick()
		}
		m.limit = ""
		return m, nil
	case storedPageMsg:
		return m, m.storedPageIn(msg)
	case presortedMsg:
		m.takePresort(true)
		return m, nil
	case resultLoadedMsg:
		return m, tea.Batch(m.loaded(msg), m.labelsFollow())
	case rawCallsMsg:
		if m.raw.sample == msg.sample {
			m.raw.loading = false
			m.raw.text, m.raw.json, m.raw.err = msg.text, msg.json, msg.err
			m.raw.lines = nil
		}
		return m, nil
	// The replies of the commands the model started. Each carries the
	// generation it was asked in, and is dropped when the user has moved
	// on, or is answered whatever came after (the editor always returns to
	// the prompt it opened).
	case promptsMsg, editPathMsg, editorDoneMsg, reloadMsg, resetMsg:
		return m, m.promptsWorkflow(msg)
	case planMsg, rerunStartedMsg:
		return m, m.rerunWorkflow(msg)
	case runsMsg, runResultsMsg:
		return m, m.pickerWorkflow(msg)
	case pagerReadyMsg, pagerDoneMsg:
		return m, m.pagerWorkflow(msg)
	case firstCostMsg, firstStartedMsg:
		return m, m.firstWorkflow(msg)
	case labelsMsg, labelSavedMsg, marksMsg, agreementMsg:
		m.labelMsg(msg)
		return m, nil
	case tea.MouseWheelMsg:
		return m, m.wheel(msg.Mouse())
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	if m.shownMode() == modeFilter {
		return m, m.editFilter(msg)
	}
	return m, nil
}

func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

func (m *Model) quit() tea.Cmd {
	switch {
	case m.watching():
		// Not ours to stop: leaving only stops watching.
		m.leftRunning = !m.stopAsked
	case m.live && m.opts.Cancel != nil:
		m.opts.Cancel()
	}
	m.stopRerun()
	m.quitting = true
	return tea.Quit
}

// Quitting reports whether the user asked to quit; the CLI uses it to
// tell a deliberate quit from the end of the program for other reasons.
func (m *Model) Quitting() bool { return m.quitting }

// LeftRunning reports that the user quit an Attached run before it
// finished (and without stopping it with X): the run goes on in its own
// process, and the CLI says how to attach again.
func (m *Model) LeftRunning() bool { return m.leftRunning }

// watching is an attached run in progress: q leaves it, X stops it.
func (m *Model) watching() bool { return m.opts.Attached && m.live }

// View renders the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// The title goes to the terminal as an OSC sequence of its own: a raw
	// ESC or BEL in a file name would end it and start another (OSC 52
	// writes the clipboard).
	v.WindowTitle = "ragscope " + sanitize.Line(m.opts.Dataset)
	return v
}

func (m *Model) render() string {
	if m.quitting {
		return ""
	}
	if m.tooSmall() {
		return m.renderTooSmall()
	}
	draw := m.screen.parts().render
	if m.shownMode() == modeHelp {
		draw = (*Model).renderHelp
	}
	return strings.Join(fitLines(draw(m), m.width, m.height, m.g.ellipsis), "\n")
}

func (m *Model) renderTooSmall() string {
	by := "×"
	if m.opts.ASCII {
		by = "x"
	}
	msg := m.st.warn.Render("terminal too small") + "\n" +
		fmt.Sprintf("%d%s%d, need at least %d%s%d", m.width, by, m.height, minWidth, by, minHeight) +
		"\n" + m.st.muted.Render("q quits")
	return lipgloss.Place(max(m.width, 1), max(m.height, 1), lipgloss.Center, lipgloss.Center, msg)
}

// Run shows the interface until the user quits. events is the stream of
// the run shown (stream 0), nil for a stored run; the model starts its
// Forward itself, as it does a re-run's. The program owns the terminal:
// nothing else may write to it while Run is running; the CLI logs to a
// file when asked.
func Run(ctx context.Context, opts Options, events <-chan eval.Event) error {
	if !opts.ASCII && eastAsianAmbiguousWide() {
		opts.ASCII = true
	}
	if os.Getenv("GOGC") == "" {
		// The table is most of the process's memory and, once loaded,
		// hardly changes; at Go's default the heap may grow to twice it
		// before a collection. GOGC set by the user wins.
		defer debug.SetGCPercent(debug.SetGCPercent(tuiGCPercent))
	}
	m := New(opts)
	m.ctx = ctx
	m.events = events
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithFPS(maxFPS))
	m.send = p.Send
	_, err := p.Run()
	// A first run started from the cost page (Options.First) streams on
	// m.events; the program has returned, so the model is no one else's.
	if m.events != nil {
		events = m.events
	}
	if events != nil {
		// The runner, cancelled or finishing, must never block on a full
		// channel, and the program may have ended before Init's stream
		// started (a terminal that did not open, ctx done at once). Racing
		// a Forward that did start is harmless: the program has gone, so
		// neither reader shows what it reads.
		go drain(events)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
