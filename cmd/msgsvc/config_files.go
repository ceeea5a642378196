package main

import (
	"fmt"
	"strings"
)

// fileEnv is the environment with NAME_FILE: any variable NAME may instead
// be given as NAME_FILE, the path of a file holding its value (a container
// Secret mounted as a file), read once at start. Setting both is an error,
// and so is a file that cannot be read or is empty; the first such error is
// kept in err.
type fileEnv struct {
	getenv func(string) string
	read   func(string) ([]byte, error)
	err    error
}

// get is the value of name: NAME's, or the contents of the file NAME_FILE
// names without its trailing line break.
func (f *fileEnv) get(name string) string {
	value, path := f.getenv(name), strings.TrimSpace(f.getenv(name+"_FILE"))
	if path == "" {
		return value
	}
	if strings.TrimSpace(value) != "" {
		f.fail(fmt.Errorf("%s and %s_FILE are both set; set only one", name, name))
		return value
	}
	raw, err := f.read(path)
	if err != nil {
		f.fail(fmt.Errorf("%s_FILE: %w", name, err))
		return ""
	}
	v := strings.TrimRight(string(raw), "\r\n")
	if strings.TrimSpace(v) == "" {
		f.fail(fmt.Errorf("%s_FILE: %s is empty", name, path))
	}
	return v
}

func (f *fileEnv) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}
