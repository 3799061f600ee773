package stored

import (
	"fmt"

	"github.com/ayoayo/ayoayo/players"
)

// ExplorerCategory is a category as the explorer's table keeps it: 1 for
// live, 2 for correspondence, a small integer in every row's key.
func ExplorerCategory(c players.Category) (int16, error) {
	switch c {
	case players.Live:
		return 1, nil
	case players.Correspondence:
		return 2, nil
	}
	return 0, fmt.Errorf("explorer: category %q", c)
}
