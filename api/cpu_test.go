package api

import "github.com/ayoayo/ayoayo/budget"

// testCPU is the CPU budget of a test's services, one for each service
// unless the test shares it: one unit, what a service made of its own on a
// 2-core machine before the budget became a constructor argument. A test
// that counts units makes its own with budget.New.
func testCPU() *budget.Budget { return budget.New(1) }

// testWorkers is the goroutines a test's table builds and generations run
// on: the two cores of the machine the tests are timed on. Only cmd reads
// the cores.
const testWorkers = 2
