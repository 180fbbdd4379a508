package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
)

// positionText is where the cursor is among the lines shown: [12/300].
func (m *Model) positionText() string {
	if len(m.lines) == 0 {
		return "[0/0]"
	}
	return fmt.Sprintf("[%d/%d]", m.cursor+1, len(m.lines))
}

// withPosition draws a header line in the width the position leaves and
// puts the position at its right end.
func (m *Model) withPosition(line func(width int) string) string {
	pos := m.positionText()
	room := max(m.width-lipgloss.Width(pos)-1, 0)
	l := truncate(line(room), room, m.g.ellipsis)
	return l + strings.Repeat(" ", max(m.width-lipgloss.Width(l)-lipgloss.Width(pos), 1)) + pos
}
