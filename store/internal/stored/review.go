package stored

import (
	"encoding/json"
	"fmt"

	"github.com/ayoayo/ayoayo/review"
)

// reviewVersion is the version of the stored form of a review; a store
// that meets another refuses it as undecodable rather than guess.
const reviewVersion = 1

// storedReview is a done review as the stores keep it: JSON, read back by
// this package alone.
type storedReview struct {
	V      int           `json:"v"`
	Review review.Review `json:"review"`
}

// EncodeReview is a done review's stored form.
func EncodeReview(r review.Review) ([]byte, error) {
	b, err := json.Marshal(storedReview{V: reviewVersion, Review: r})
	if err != nil {
		return nil, fmt.Errorf("encode review: %w", err)
	}
	return b, nil
}

// DecodeReview reads what EncodeReview wrote.
func DecodeReview(b []byte) (review.Review, error) {
	var s storedReview
	if err := json.Unmarshal(b, &s); err != nil {
		return review.Review{}, err
	}
	if s.V != reviewVersion {
		return review.Review{}, fmt.Errorf("stored review version %d, want %d", s.V, reviewVersion)
	}
	return s.Review, nil
}
