package render

import (
	"strconv"
	"strings"
	"testing"
)

func TestHyperlinks(t *testing.T) {
	names := map[string]string{
		"pkg/kubelet/kubelet.go":  "pkg/kubelet/kubelet.go",
		"kubelet.go":              "kubelet.go",
		`odd\x1bname.go`:          "odd\x1bname.go",
		"pkg/kubelet/pleg/gen.go": "pkg/kubelet/pleg/gen.go",
	}
	link := func(file string, line int) string {
		if strings.Contains(file, "\x1b") {
			return "https://x/" + file // an address no terminal may be sent
		}
		return "https://x/" + file + "#L" + strconv.Itoa(line)
	}
	l := func(target, text string) string { return "\x1b]8;;" + target + "\x1b\\" + text + "\x1b]8;;\x1b\\" }
	for _, tc := range []struct{ in, want string }{
		{"built at pkg/kubelet/kubelet.go:215\n", "built at " + l("https://x/pkg/kubelet/kubelet.go#L215", "pkg/kubelet/kubelet.go:215") + "\n"},
		// The longest name, not one that ends it.
		{"(pkg/kubelet/kubelet.go:2:7)\n", "(" + l("https://x/pkg/kubelet/kubelet.go#L2", "pkg/kubelet/kubelet.go:2:7") + ")\n"},
		{"kubelet.go:3\n", l("https://x/kubelet.go#L3", "kubelet.go:3") + "\n"},
		// Inside a longer name, or with no line, a name stays plain.
		{"cmd/kubelet.go:3 other/pkg/kubelet/kubelet.go:4 kubelet.go: kubelet.go\n", "cmd/kubelet.go:3 other/pkg/kubelet/kubelet.go:4 kubelet.go: kubelet.go\n"},
		{"unknown.go:3 line 215\n", "unknown.go:3 line 215\n"},
		// An address with a control character is not sent.
		{`odd\x1bname.go:1` + "\n", `odd\x1bname.go:1` + "\n"},
	} {
		var b strings.Builder
		w := Hyperlinks(&b, names, link)
		if _, err := w.Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	// A position split between writes is linked; nothing of a line is
	// written before it ends, and Flush writes a last line with no newline.
	var b strings.Builder
	w := Hyperlinks(&b, names, link)
	w.Write([]byte("at pkg/kubelet/pl"))
	if b.Len() != 0 {
		t.Errorf("wrote %q before the line ended", b.String())
	}
	w.Write([]byte("eg/gen.go:9, then\nrest kubelet.go:1"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "at " + l("https://x/pkg/kubelet/pleg/gen.go#L9", "pkg/kubelet/pleg/gen.go:9") + ", then\nrest " + l("https://x/kubelet.go#L1", "kubelet.go:1")
	if b.String() != want {
		t.Errorf("split writes:\n got %q\nwant %q", b.String(), want)
	}
	// No names: the text as it is.
	b.Reset()
	w = Hyperlinks(&b, nil, link)
	w.Write([]byte("pkg/kubelet/kubelet.go:1\n"))
	if b.String() != "pkg/kubelet/kubelet.go:1\n" {
		t.Errorf("no names: %q", b.String())
	}
}

// Whatever the text, linking only adds sequences: without them, the
// output is the input.
func FuzzHyperlinks(f *testing.F) {
	f.Add("built at pkg/a.go:12 and a.go:3:4\nx", 3)
	f.Add("pkg/a.go:1pkg/a.go:2", 1)
	f.Fuzz(func(t *testing.T, text string, split int) {
		names := map[string]string{"pkg/a.go": "pkg/a.go", "a.go": "a.go"}
		var b strings.Builder
		w := Hyperlinks(&b, names, func(file string, line int) string { return "https://x/" + file + "#L" + strconv.Itoa(line) })
		split = max(0, min(split, len(text)))
		w.Write([]byte(text[:split]))
		w.Write([]byte(text[split:]))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		for {
			i := strings.Index(got, "\x1b]8;;")
			if i < 0 || strings.Contains(text, "\x1b]8;;") {
				break
			}
			j := strings.Index(got[i:], "\x1b\\")
			got = got[:i] + got[i+j+2:]
		}
		if !strings.Contains(text, "\x1b") && got != text {
			t.Errorf("%q: without its links, %q", text, got)
		}
	})
}
