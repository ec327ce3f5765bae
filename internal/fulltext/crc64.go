package fulltext

import "hash/crc64"

// jonesTable is the CRC-64 Jones polynomial (reflected), as Redis uses.
var jonesTable = crc64.MakeTable(0x95AC9329AC4BC9B5)

// CRC64 is Redis's crc64(0, …): Jones polynomial, reflected, init 0, no final xor.
func CRC64(b []byte) uint64 { return ^crc64.Update(^uint64(0), jonesTable, b) }

// SchemaCRC is TFT.MSEARCH's index_crc64 of an index's schema.
func (ix *Index) SchemaCRC() uint64 {
	return CRC64([]byte(`{"mappings":` + ix.Mapping.MappingsJSON() + `,"settings":` + ix.Mapping.SettingsJSON() + `}`))
}
