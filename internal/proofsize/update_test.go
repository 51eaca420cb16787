package proofsize

// Every test package accepts -update, so that go test ./... -update (make
// golden) rewrites the golden files of the packages that have them.
import _ "github.com/immutable-gen/immutable-gen/internal/golden"
