// Package exit holds ragscope's exit statuses and the error that means the
// user's flags or input were wrong (status 2), so that every package under
// the CLI can say how a command ends without importing the CLI or app.
package exit

import "fmt"

// Exit statuses of `ragscope run` (and of the other commands where they apply).
const (
	OK          = 0
	Fatal       = 1 // the run could not be carried out
	Usage       = 2 // bad flags or bad input
	Failures    = 3 // the run finished but some (sample, metric) failed: judge, parse or cache errors
	Gate        = 4 // a --fail-under / --fail-under-sample / --fail-under-conversation gate was breached, or could not be checked
	Interrupted = 130
)

// UsageError marks errors caused by the user's flags or input (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a message made as fmt.Errorf makes one.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }
