package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// EventsMsg carries a batch of runner events, in the order the runner
// emitted them (see Forward).
type EventsMsg struct{ Events []eval.Event }

func (m *Model) applyEvents(evs []eval.Event) tea.Cmd {
	changed := false
	for i := range evs {
		ev := &evs[i]
		m.counters.inFlight = ev.InFlight
		switch ev.Kind {
		case eval.EventRunStarted:
			if ev.Total > 0 {
				m.total = ev.Total
			}
			if m.opts.Started.IsZero() && !ev.Time.IsZero() {
				m.opts.Started = ev.Time
			}
		case eval.EventSampleStarted:
			if _, ok := m.byIndex[ev.Sample]; !ok && ev.Sample >= 0 {
				m.upsert(ev.Sample, nil)
				changed = true
			}
		case eval.EventSampleFinished:
			if ev.Result != nil {
				m.upsert(ev.Result.Index, ev.Result)
				changed = true
			}
		case eval.EventCall:
			if ev.Call != nil {
				m.countCalls([]eval.CallRecord{*ev.Call})
			}
		case eval.EventRetry:
			m.counters.retries++
		case eval.EventError:
			m.counters.errors++
		case eval.EventRunFinished:
			m.live = false
			m.confirm = false
			m.ended = ev.Time
			if m.ended.IsZero() {
				m.ended = m.now()
			}
		}
	}
	if m.total < len(m.rows) {
		m.total = len(m.rows)
	}
	if !changed {
		return nil
	}
	m.dirty = true
	m.sorted = nil
	if m.screen == screenDetail {
		m.detail.invalidate()
	}
	if len(m.rows) <= deriveEagerRows || m.now().Sub(m.lastDerive) >= deriveEvery {
		m.derive()
		return nil
	}
	if m.deriveScheduled {
		return nil
	}
	m.deriveScheduled = true
	return tea.Tick(deriveEvery, func(time.Time) tea.Msg { return deriveMsg{} })
}

func (m *Model) countCalls(calls []eval.CallRecord) {
	for _, c := range calls {
		m.counters.calls++
		if c.Cached {
			m.counters.cacheHits++
		}
		if !c.Cached {
			// A cached reply keeps the usage of the call that paid for it.
			m.counters.tokens += c.Tokens.PromptTokens + c.Tokens.CompletionTokens
		}
		if c.Error != "" && !m.live {
			// A stored run has no error events; its failed calls are the
			// only record of them.
			m.counters.errors++
		}
		if !m.live {
			m.counters.retries += c.Retries
		}
	}
}

func (m *Model) upsert(index int, res *eval.Result) {
	if i, ok := m.byIndex[index]; ok {
		r := m.rows[i]
		if r.res == nil && res != nil {
			m.running--
		} else if r.res != nil && res == nil {
			m.running++
		}
		r.set(res)
		return
	}
	if res == nil {
		m.running++
	}
	m.byIndex[index] = len(m.rows)
	m.rows = append(m.rows, newRow(index, res))
}

// derive recomputes the rows shown and their statistics, keeping the
// cursor on the same sample when it is still shown.
func (m *Model) derive() {
	keep := -1
	if m.cursor >= 0 && m.cursor < len(m.shown) {
		keep = int(m.shown[m.cursor])
	}
	if m.sorted == nil {
		m.sorted = map[int]sorted{}
	}
	s, ok := m.sorted[m.sortIdx]
	if !ok {
		s = sortRows(m.rows, m.sortKeys[m.sortIdx])
		m.sorted[m.sortIdx] = s
	}
	m.shown = order(s, m.rows, m.filter, m.metrics, m.desc)
	// The aggregates depend on which rows are shown, not on their order.
	if m.dirty || m.statsFilter != m.filter || !m.statsValid {
		m.stats = computeStats(m.rows, m.shown, m.metrics)
		m.statsFilter, m.statsValid = m.filter, true
	}
	m.dirty = false
	m.lastDerive = m.now()
	if keep >= 0 {
		for pos, i := range m.shown {
			if int(i) == keep {
				m.cursor = pos
				break
			}
		}
	}
	m.clampTable()
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func joinLines(lines []string) string { return strings.Join(lines, "\n") }

// eastAsianAmbiguousWide reports a terminal set up to draw ambiguous-width
// glyphs two cells wide, where box and block characters would misalign.
func eastAsianAmbiguousWide() bool {
	v := os.Getenv("RUNEWIDTH_EASTASIAN")
	return v == "1" || strings.EqualFold(v, "true")
}
