// Package franzshare pins franz-go so that `go test github.com/twmb/franz-go/pkg/kgo` runs the
// client's own tests (from the module cache) with this module's dependency versions.
package franzshare

import _ "github.com/twmb/franz-go/pkg/kgo"
