package eval

import (
	"context"
	"errors"
	"strings"
)

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled)
}
