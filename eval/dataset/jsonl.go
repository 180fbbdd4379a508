package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// readJSONL reads one JSON object per line. Blank lines are ignored; a
// trailing \r (Windows line endings) is whitespace to the trimming.
func readJSONL(c *collector, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := c.fromJSON(line, b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &Error{File: c.name, Line: line + 1, Unit: unitLine, Msg: fmt.Sprintf(
				"the line is longer than %d MiB — is this really a JSON Lines file? Records must be one per line", maxLine>>20)}
		}
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}
