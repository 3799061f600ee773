package httpx

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// Gzip compresses the answers of at least minLength bytes for a client
// whose Accept-Encoding names gzip, at the level level picks for the
// request; a level of NoCompression leaves the answer as it is. Every
// answer but those left alone says Vary: Accept-Encoding.
//
// It does what echo's Gzip middleware does with a MinLength, except that
// nothing of gzip is touched until an answer reaches minLength: the
// answer is held in a small buffer until then, and one that ends shorter
// (most JSON answers, every problem) goes out as it is, without the gzip
// writer's reset and close that echo's pays for each request. A Flush sends
// what is held as it is, and the rest of that answer likewise: a handler
// that flushes wants its bytes now.
func Gzip(minLength int, level func(echo.Context) int) echo.MiddlewareFunc {
	pools := map[int]*sync.Pool{}
	for _, l := range []int{gzip.DefaultCompression, gzip.BestSpeed, gzip.BestCompression} {
		pools[l] = &sync.Pool{New: func() any {
			w, _ := gzip.NewWriterLevel(io.Discard, l) // l is a valid level
			return w
		}}
	}
	writers := sync.Pool{New: func() any { return &gzipWriter{held: make([]byte, 0, minLength)} }}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			l := level(c)
			if l == gzip.NoCompression {
				return next(c)
			}
			res := c.Response()
			res.Header().Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
			pool, ok := pools[l]
			if !ok || !strings.Contains(c.Request().Header.Get(echo.HeaderAcceptEncoding), "gzip") {
				return next(c)
			}
			w := writers.Get().(*gzipWriter)
			*w = gzipWriter{ResponseWriter: res.Writer, held: w.held[:0], min: minLength, pool: pool}
			res.Writer = w
			defer func() {
				res.Writer = w.ResponseWriter
				w.finish()
				w.ResponseWriter = nil
				writers.Put(w)
			}()
			return next(c)
		}
	}
}

// gzipWriter holds an answer until it reaches min bytes, then sends it
// gzipped; an answer that ends, or is flushed, before that goes out as
// it is.
type gzipWriter struct {
	http.ResponseWriter
	held []byte
	min  int
	pool *sync.Pool
	gz   *gzip.Writer // set once the answer is being compressed
	raw  bool         // set once it is being sent as it is
	code int          // the status held back, or 0
}

func (w *gzipWriter) WriteHeader(code int) {
	if w.gz != nil || w.raw {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.code = code
}

func (w *gzipWriter) Write(b []byte) (int, error) {
	switch {
	case w.gz != nil:
		return w.gz.Write(b)
	case w.raw:
		return w.ResponseWriter.Write(b)
	case len(w.held)+len(b) < w.min:
		w.held = append(w.held, b...)
		return len(b), nil
	}
	h := w.Header()
	if h.Get(echo.HeaderContentType) == "" {
		// What net/http would say of the plain bytes, not of the gzip
		// stream.
		h.Set(echo.HeaderContentType, http.DetectContentType(append(w.held, b...)))
	}
	h.Del(echo.HeaderContentLength)
	h.Set(echo.HeaderContentEncoding, "gzip")
	w.sendCode()
	w.gz = w.pool.Get().(*gzip.Writer)
	w.gz.Reset(w.ResponseWriter)
	if len(w.held) > 0 {
		if _, err := w.gz.Write(w.held); err != nil {
			return 0, err
		}
	}
	return w.gz.Write(b)
}

// sendCode writes the status held back, if any.
func (w *gzipWriter) sendCode() {
	if w.code != 0 {
		w.ResponseWriter.WriteHeader(w.code)
		w.code = 0
	}
}

// sendRaw sends what is held as it is, and makes the rest of the answer
// go out likewise.
func (w *gzipWriter) sendRaw() {
	w.raw = true
	w.sendCode()
	if len(w.held) > 0 {
		_, _ = w.ResponseWriter.Write(w.held) // a failed write is the client gone; the handler's next write says so
		w.held = w.held[:0]
	}
}

func (w *gzipWriter) Flush() {
	if w.gz != nil {
		_ = w.gz.Flush()
	} else if !w.raw {
		w.sendRaw()
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// finish ends the answer once the handler is done.
func (w *gzipWriter) finish() {
	if w.gz != nil {
		_ = w.gz.Close()
		w.gz.Reset(io.Discard)
		w.pool.Put(w.gz)
		return
	}
	if !w.raw {
		w.sendRaw()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *gzipWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
