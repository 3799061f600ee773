package search

import "testing"

func TestTableSizes(t *testing.T) {
	tests := []struct {
		name    string
		bytes   int
		entries int
	}{
		{"nothing asked still makes a bucket", 0, 2},
		{"less than two buckets", 63, 2},
		{"two buckets", 64, 4},
		{"a mebibyte", 1 << 20, 1 << 16},
		{"rounded down to a power of two", 3 << 19, 1 << 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTable(tc.bytes)
			if len(tab.entries) != tc.entries || tab.mask != uint64(tc.entries-1)&^1 {
				t.Fatalf("%d bytes: %d entries, mask %#x; want %d entries", tc.bytes, len(tab.entries), tab.mask, tc.entries)
			}
		})
	}
}

// TestTableResize: a table shrinks into the memory it has, grows into new
// memory, and nothing a previous search stored is seen by the next one,
// whatever the sizes in between.
func TestTableResize(t *testing.T) {
	const key = 0x1234_5678_9abc_def0
	entry := ttData{score: 300, move: 4, depth: 9, bound: boundExact, proven: true}
	tab := newTable(1 << 20)
	tab.newSearch()
	tab.store(key, entry)
	if got, ok := tab.probe(key); !ok || got != entry {
		t.Fatalf("probe after store: %+v %v, want %+v", got, ok, entry)
	}
	mem := &tab.mem[0]
	if n := testing.AllocsPerRun(10, func() { tab.resize(64 << 10) }); n != 0 {
		t.Fatalf("shrinking allocated %v times", n)
	}
	if len(tab.entries) != 4096 || &tab.mem[0] != mem {
		t.Fatalf("shrunk to %d entries in new memory: want 4096 in the same memory", len(tab.entries))
	}
	tab.newSearch()
	if _, ok := tab.probe(key); ok {
		t.Fatal("a new search found the last search's entry")
	}
	tab.resize(2 << 20)
	if len(tab.entries) != 1<<17 || len(tab.mem) != 1<<17 {
		t.Fatalf("grown to %d entries (memory %d), want %d", len(tab.entries), len(tab.mem), 1<<17)
	}

	// When the generation counter wraps, the memory beyond the part in use
	// is cleared too: otherwise an entry stored there generations ago would
	// pass for new once the table grows back over it.
	tab.newSearch()
	tab.store(key, entry) // in the upper half: key&mask is past 4096 entries
	if i := key & tab.mask; i < 4096 {
		t.Fatalf("test key lands in entry %d; it must be past the small table", i)
	}
	stored := tab.gen
	tab.resize(64 << 10)
	tab.gen = 1<<genBits - 1
	tab.newSearch() // wraps, to generation 1
	for tab.gen != stored {
		tab.newSearch()
	}
	tab.resize(2 << 20)
	if _, ok := tab.probe(key); ok {
		t.Fatal("an entry from before the counter wrapped passes for new")
	}
}
