package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// --request-log picks which requests get their line: all, only the
// refused and failed ones, or none.
func TestRequestLog(t *testing.T) {
	tests := []struct {
		log        RequestLog
		ok, absent bool // whether a 200 and a 404 are logged
	}{
		{"", true, true},
		{RequestLogAll, true, true},
		{RequestLogErrors, false, true},
		{RequestLogNone, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.log), func(t *testing.T) {
			var buf bytes.Buffer
			ts := newTester(t, Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil)), RequestLog: tt.log})
			ts.do(http.MethodGet, "/livez", "", "")
			ts.do(http.MethodGet, "/no/such/route", "", "")
			logged := func(path string) bool { return strings.Contains(buf.String(), `"path":"`+path+`"`) }
			if logged("/livez") != tt.ok || logged("/no/such/route") != tt.absent {
				t.Fatalf("logged the 200: %v, the 404: %v; want %v, %v:\n%s", logged("/livez"), logged("/no/such/route"), tt.ok, tt.absent, buf.String())
			}
		})
	}
	if _, err := ParseRequestLog("some"); err == nil {
		t.Error("ParseRequestLog took a word that is none of all, errors, none")
	}
}
