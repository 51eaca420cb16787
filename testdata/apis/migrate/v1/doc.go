// Package v1 is the worked example of `immutable-gen migrate`: an API whose
// immutability is written by hand in CEL, one field per shape the command
// recognises (migrated) or recognises and leaves (with the reason).
// testdata/golden/migrate/ holds the diff and the report of
//
//	immutable-gen migrate paths=./testdata/apis/migrate/... --diff
//
// (go test ./cmd/immutable-gen -run TestMigrateGolden -update rewrites them).
//
// +groupName=migrate.example.com
package v1
