package sarif

import (
	"fmt"
	"os"
)

// WriteFile writes r to the file name as a SARIF log.
func WriteFile(name string, r Run) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = Write(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
