package srcpos

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A file name is bytes; a JSON string is Unicode text, and encoding/json
// writes each byte that is not UTF-8 as U+FFFD, which no file is named
// by. So a name that is not valid UTF-8 is written Go-quoted, quotes
// included ("\"pkg/features/kube features \\xff\\xfe.go\""), the form the
// text output shows; every other name is written as is. A name that
// itself begins with a double quote is quoted too, so that the leading
// quote always marks the quoted form. Go quoting, not percent-encoding:
// names that are valid UTF-8 (all the names of a real tree) keep their
// bytes, '%' included, and Go's strconv.Unquote reverses it.

// JSONName is the form of a file name in plegvet's JSON answers: the name
// itself, or, when it is not valid UTF-8 or begins with '"', the name
// Go-quoted. FromJSONName reverses it.
func JSONName(name string) string {
	if utf8.ValidString(name) && !strings.HasPrefix(name, `"`) {
		return name
	}
	return strconv.Quote(name)
}

// FromJSONName is the file name a JSON answer's name stands for: a name
// that begins with '"' unquoted as Go does, any other as it is.
func FromJSONName(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	return strconv.Unquote(s)
}
