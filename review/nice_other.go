//go:build !linux

package review

func lowerThreadPriority() {}
