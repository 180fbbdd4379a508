//go:build race

package calibrate

// raceEnabled: the race detector slows the judge some tenfold; the
// diagnosis tests then check a sample of the sets, and .ci/run checks
// every set without it.
const raceEnabled = true
