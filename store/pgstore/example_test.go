package pgstore_test

import (
	"fmt"
	"strings"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store/pgstore"
)

// A predicate's table is its name in lower case; a name longer than the 63
// bytes PostgreSQL keeps ends in a hash of the whole name, so that two long
// names sharing their first 63 bytes get tables of their own (the hashes
// are the first 8 hex digits of sha256sum of the lower-case names).
func ExampleTableName() {
	long := strings.Repeat("VeryLong", 8) // 64 bytes
	for _, name := range []string{"Smokes", long + "A", long + "B"} {
		fmt.Println(pgstore.TableName(&model.Predicate{Name: name}))
	}
	// Output:
	// smokes
	// verylongverylongverylongverylongverylongverylongverylo_b14326ec
	// verylongverylongverylongverylongverylongverylongverylo_74116a3a
}

// Names PostgreSQL would cut short, or cannot hold, are refused before
// anything is sent.
func ExampleCheckIdentifier() {
	fmt.Println(pgstore.CheckIdentifier("schema", "hinge"))
	fmt.Println(pgstore.CheckIdentifier("schema", ""))
	fmt.Println(pgstore.CheckIdentifier("output table", strings.Repeat("x", 64)) != nil)
	// Output:
	// <nil>
	// the schema name is empty
	// true
}
