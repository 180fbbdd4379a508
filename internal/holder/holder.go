// Package holder lets the one process that holds the database file (bbolt
// allows a single writer) serve it to every other ragscope process over a
// Unix socket beside it (Client implements cache.Store). The socket speaks a greeting line (Hello, JSON) and then net/rpc with the
// JSON codec: gob cannot encode the nil *float64 scores of results, and a
// value that went through the socket reads back exactly like one read from
// the file. Only the owner of the database may connect (a 0700 directory,
// a 0600 socket, the peer's uid checked). The package decides nothing about
// who should hold the file; it reports what it found with typed errors.
package holder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Protocol is the version of what is spoken on the socket after the Hello.
// Bump it on any change a peer of the previous version would misread.
const Protocol = 7 // 2: RunPage; 3: labels; 4: watcher state; 5: run progress and outcomes; 6: RunSummaries; 7: arguments and results as arrays

// Errors the caller decides on; the returned errors wrap them and say more.
var (
	// ErrNoHolder: nobody serves the database (no socket, or a stale one).
	// The caller may open the file and serve it.
	ErrNoHolder = errors.New("no process serves the database")
	// ErrServed: Serve found another process already answering on the socket.
	ErrServed = errors.New("the database is already served")
	// ErrIncompatible: the holder speaks another protocol version.
	ErrIncompatible = errors.New("the holder speaks another protocol")
	// ErrLost: the connection to the holder is gone. Every write is
	// idempotent, so the caller may take over (or dial the next holder) and
	// repeat the call.
	ErrLost = errors.New("lost the connection to the holder")
	// ErrNoRunService: the holder does not evaluate runs for its clients
	// (only `ragscope serve` does).
	ErrNoRunService = errors.New("the holder does not run detached runs")
)

// Hello is the first line the server writes on every connection, so that a
// client learns who holds the database and whether it can talk to it.
type Hello struct {
	Protocol int       `json:"protocol"`
	Version  string    `json:"version,omitempty"` // the holder's ragscope version
	PID      int       `json:"pid,omitempty"`
	Role     string    `json:"role,omitempty"` // "run", "open", "serve", ...
	DB       string    `json:"db,omitempty"`   // the database file, absolute
	Started  time.Time `json:"started,omitzero"`
	// Error is set when the server refuses the connection; nothing follows.
	Error string `json:"error,omitempty"`
}

// LiveRun is a run being evaluated right now, and by which process.
type LiveRun struct {
	PID  int    `json:"pid"`
	Role string `json:"role"`
}

// RunService evaluates runs for clients (`ragscope serve`), so that a run
// outlives the terminal that submitted it.
type RunService interface {
	// Submit starts a run and returns its id.
	Submit(req SubmitRequest) (string, error)
	// Stop cancels a run started by Submit.
	Stop(runID string) error
	// Outcome says how a run started by Submit ended, waiting for its end
	// until ctx is done (then Done is false).
	Outcome(ctx context.Context, runID string) (RunOutcome, error)
}

// RunOutcome is how a run the holder's RunService evaluated ended: what
// `ragscope run --headless` would have exited with, gate included.
type RunOutcome struct {
	// Known: the service evaluates or evaluated the run. A run submitted
	// to an earlier server, or evaluated by another process, is not known.
	Known bool `json:"known"`
	// Done: the run ended and its reports were written; Code is its exit
	// code (0, 1, 3, 4 or 130, as docs/ci.md's table says).
	Done bool `json:"done"`
	Code int  `json:"code"`
	// Summary is how it ended in words, as the server logs it.
	Summary string `json:"summary,omitempty"`
}

// SubmitRequest is a run handed to the holder's RunService.
type SubmitRequest struct {
	// Config is the run's configuration; only the application reads it.
	Config json.RawMessage `json:"config"`
	// APIKey travels in memory only: it is never written to the database,
	// never logged and never part of an error message.
	APIKey string `json:"api_key,omitempty"`
	// Dir is the client's working directory, for relative paths in Config.
	Dir string `json:"dir,omitempty"`
}

// String keeps the API key out of anything that formats a request with %v.
func (r SubmitRequest) String() string {
	key := "none"
	if r.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("SubmitRequest{Config: %d bytes, APIKey: %s, Dir: %q}", len(r.Config), key, r.Dir)
}

// GoString does the same for %#v.
func (r SubmitRequest) GoString() string { return r.String() }

// maxSockPath leaves room under the 108-byte sun_path limit of Linux (104
// on the BSDs) for the terminating NUL and some slack.
const maxSockPath = 100

// fallbackRoot is where sockets go when the path beside the database is too
// long. Not os.TempDir: a long $TMPDIR would defeat the purpose. Tests
// point it elsewhere.
var fallbackRoot = "/tmp"

// SocketPath is where the holder of the database at dbPath serves it:
// <dir>/.<base>.holder/sock, beside the file, so that every process that
// names the same file finds the same socket. When that path is too long
// for a Unix socket it is /tmp/ragscope-<uid>/<hash of the path>/sock
// instead, and /tmp/ragscope-<uid> is created (or checked) owner-only.
func SocketPath(dbPath string) (string, error) {
	abs, err := resolveDB(dbPath)
	if err != nil {
		return "", err
	}
	sock, fallback := socketPathIn(abs, fallbackRoot, os.Getuid())
	if fallback {
		if err := ensurePrivateRoot(filepath.Dir(filepath.Dir(sock)), os.Getuid()); err != nil {
			return "", fmt.Errorf("database %s: its socket path beside it is too long, and %w", abs, err)
		}
	}
	return sock, nil
}

// resolveDB makes the path absolute and resolves symlinks in its directory,
// so that two spellings of one file (a relative path, a symlinked home)
// share one socket. The file itself is not resolved: it may not exist yet.
func resolveDB(dbPath string) (string, error) {
	if dbPath == "" {
		return "", errors.New("database path is empty; pass --db FILE")
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return "", fmt.Errorf("database %s: cannot make the path absolute: %w", dbPath, err)
	}
	dir, base := filepath.Split(abs)
	real, err := filepath.EvalSymlinks(dir)
	switch {
	case err == nil:
		dir = real
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("database %s: cannot resolve its directory: %w", abs, err)
	}
	return filepath.Join(dir, base), nil
}

// socketPathIn is SocketPath without touching the filesystem.
func socketPathIn(absDB, root string, uid int) (sock string, fallback bool) {
	dir, base := filepath.Split(absDB)
	sock = filepath.Join(dir, "."+base+".holder", "sock")
	if len(sock) <= maxSockPath {
		return sock, false
	}
	sum := sha256.Sum256([]byte(absDB))
	return filepath.Join(root, "ragscope-"+strconv.Itoa(uid), hex.EncodeToString(sum[:])[:16], "sock"), true
}

// ensurePrivateRoot creates the shared-/tmp directory of our sockets, or
// checks that the existing one cannot be used by another user to intercept
// or squat our sockets.
func ensurePrivateRoot(dir string, uid int) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot create %s for its socket: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("cannot check %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory; remove it (ragscope keeps its sockets there)", dir)
	}
	if owner := fileOwner(fi); owner >= 0 && owner != uid {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d); remove it or pass --db FILE in a shorter directory", dir, owner, uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s has mode %s, open to other users; run `chmod 700 %s` or remove it", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// ensureSocketDir creates the directory that holds one database's socket.
// Unlike the /tmp root it may be tightened: it is ours alone.
func ensureSocketDir(dir string, uid int) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot create the socket directory %s: %w; check the permissions of its parent or pass --db FILE", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("cannot check the socket directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the socket directory %s is not a directory; remove it", dir)
	}
	if owner := fileOwner(fi); owner >= 0 && owner != uid {
		return fmt.Errorf("the socket directory %s belongs to uid %d, not to you (uid %d); remove it or pass --db FILE", dir, owner, uid)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("the socket directory %s has mode %s and cannot be made owner-only: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}
