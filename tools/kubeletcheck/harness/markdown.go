package harness

import (
	"fmt"
	"os"
	"strings"
)

// Cell escapes a Markdown table cell.
func Cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Cut cuts s after n bytes, marking the cut with "...".
func Cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// WriteDoc writes a document a command generated to file, or to standard
// output when file is "".
func WriteDoc(file, text string) error {
	if file == "" {
		_, err := fmt.Print(text)
		return err
	}
	return os.WriteFile(file, []byte(text), 0o644)
}
