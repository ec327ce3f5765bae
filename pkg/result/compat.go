package result

// SchemaCompat identifies a Compat document.
const SchemaCompat = "tairbench.compat/v1"

// Compat is what a peer tool's front-end wrote (`tairbench
// redis-benchmark`, `tairbench memtier`): the command line as given and a
// Run per test.
type Compat struct {
	Header
	// Tool is the peer tool whose command line was run ("redis-benchmark").
	Tool string `json:"tool"`
	// Args is the command line after the program name; a password is "***".
	Args []string `json:"args"`
	// Tests has one entry per test, in the order they ran.
	Tests []CompatTest `json:"tests"`
}

// CompatTest is one test of a peer tool's command line.
type CompatTest struct {
	// Name is the test's name as the peer tool prints it ("SET", "LRANGE_100 (first 100 elements)").
	Name string `json:"name"`
	Run  *Run   `json:"run"`
}
