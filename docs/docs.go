// Package docs holds the project's documentation pages, and embeds the
// one the binary shows: lint.md, whose section per finding is the help of
// each rule of lint's SARIF output. The pages stay the one owner of their
// text; the binary reads it from here rather than keeping a copy.
package docs

import _ "embed"

// Lint is docs/lint.md.
//
//go:embed lint.md
var Lint string
