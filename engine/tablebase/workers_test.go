package tablebase

// testWorkers is the goroutines a test's table builds and generations run
// on: the two cores of the machine the tests are timed on. Only cmd reads
// the cores.
const testWorkers = 2
