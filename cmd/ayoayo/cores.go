package main

import (
	"cmp"
	"runtime"

	"github.com/ayoayo/ayoayo/budget"
)

// cores is the processors the process may keep busy at once (GOMAXPROCS,
// which follows a container's CPU limit). It is the one place the program
// reads them: the services take their share of the CPU from the budget
// made of them (newBudget), and the offline commands size their workers by
// them; no package below cmd looks at the machine.
func cores() int { return runtime.GOMAXPROCS(0) }

// newBudget is a process's one CPU budget, handed to every service that
// spends CPU: units of it (--cpu-budget), or zero for budget.SizeFor the
// cores.
func newBudget(units int) *budget.Budget {
	return budget.New(cmp.Or(max(units, 0), budget.SizeFor(cores())))
}
