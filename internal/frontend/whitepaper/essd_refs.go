package whitepaper

// essdRefs are the ESSD whitepaper's YCSB tables (seed 002): string group,
// one field of 100 bytes. Table 0: memory larger than data; table 1: data
// larger than memory. Latencies in µs.
var essdRefs = [2][]essdInstance{
	{
		{"tair.essd.standard.xlarge", 20000000, 20000000, 32, []essdRow{
			{"Load", 36740, []opRef{{"INSERT", 851, 1595}}},
			{"Uniform-Read", 103890, []opRef{{"READ", 294, 907}}},
			{"Zipfian-Read", 106357, []opRef{{"READ", 288, 865}}},
			{"Uniform-50%Read-50%Update", 46610, []opRef{{"READ", 530, 1108}, {"UPDATE", 795, 1684}}},
		}},
		{"tair.essd.standard.2xlarge", 40000000, 40000000, 50, []essdRow{
			{"Load", 54670, []opRef{{"INSERT", 911, 1528}}},
			{"Uniform-Read", 150796, []opRef{{"READ", 314, 995}}},
			{"Zipfian-Read", 151110, []opRef{{"READ", 314, 977}}},
			{"Uniform-50%Read-50%Update", 69137, []opRef{{"READ", 537, 948}, {"UPDATE", 878, 1479}}},
		}},
		{"tair.essd.standard.4xlarge", 80000000, 80000000, 100, []essdRow{
			{"Load", 90703, []opRef{{"INSERT", 1099, 1697}}},
			{"Uniform-Read", 285833, []opRef{{"READ", 339, 1196}}},
			{"Zipfian-Read", 288750, []opRef{{"READ", 335, 1162}}},
			{"Uniform-50%Read-50%Update", 110316, []opRef{{"READ", 757, 1114}, {"UPDATE", 1041, 1536}}},
		}},
		{"tair.essd.standard.8xlarge", 160000000, 160000000, 120, []essdRow{
			{"Load", 117581, []opRef{{"INSERT", 1011, 1692}}},
			{"Uniform-Read", 477099, []opRef{{"READ", 242, 784}}},
			{"Zipfian-Read", 494550, []opRef{{"READ", 234, 727}}},
			{"Uniform-50%Read-50%Update", 196245, []opRef{{"READ", 519, 829}, {"UPDATE", 691, 1096}}},
		}},
		{"tair.essd.standard.13xlarge", 240000000, 240000000, 160, []essdRow{
			{"Load", 126366, []opRef{{"INSERT", 1249, 2281}}},
			{"Uniform-Read", 673183, []opRef{{"READ", 231, 637}}},
			{"Zipfian-Read", 691383, []opRef{{"READ", 230, 652}}},
			{"Uniform-50%Read-50%Update", 197803, []opRef{{"READ", 678, 940}, {"UPDATE", 935, 1925}}},
		}},
	},
	{
		{"tair.essd.standard.xlarge", 640000000, 20000000, 32, []essdRow{
			{"Load", 25561, []opRef{{"INSERT", 1245, 3497}}},
			{"Uniform-Read", 25727, []opRef{{"READ", 1239, 2042}}},
			{"Zipfian-Read", 47559, []opRef{{"READ", 667, 1217}}},
			{"Uniform-50%Read-50%Update", 19731, []opRef{{"READ", 1576, 6383}, {"UPDATE", 1639, 6487}}},
		}},
		{"tair.essd.standard.2xlarge", 1280000000, 40000000, 50, []essdRow{
			{"Load", 42287, []opRef{{"INSERT", 1179, 3465}}},
			{"Uniform-Read", 35794, []opRef{{"READ", 1394, 1880}}},
			{"Zipfian-Read", 77759, []opRef{{"READ", 637, 1219}}},
			{"Uniform-50%Read-50%Update", 28656, []opRef{{"READ", 1716, 8863}, {"UPDATE", 1761, 8951}}},
		}},
		{"tair.essd.standard.4xlarge", 2560000000, 80000000, 100, []essdRow{
			{"Load", 65923, []opRef{{"INSERT", 1514, 6615}}},
			{"Uniform-Read", 44753, []opRef{{"READ", 2232, 7903}}},
			{"Zipfian-Read", 120337, []opRef{{"READ", 826, 1382}}},
			{"Uniform-50%Read-50%Update", 38470, []opRef{{"READ", 2577, 8535}, {"UPDATE", 2617, 8583}}},
		}},
		{"tair.essd.standard.8xlarge", 5120000000, 160000000, 120, []essdRow{
			{"Load", 89231, []opRef{{"INSERT", 1340, 9575}}},
			{"Uniform-Read", 51175, []opRef{{"READ", 2343, 2955}}},
			{"Zipfian-Read", 131317, []opRef{{"READ", 911, 1573}}},
			{"Uniform-50%Read-50%Update", 38930, []opRef{{"READ", 3063, 8695}, {"UPDATE", 3097, 8735}}},
		}},
		{"tair.essd.standard.13xlarge", 7680000000, 240000000, 160, []essdRow{
			{"Load", 92163, []opRef{{"INSERT", 1733, 9879}}},
			{"Uniform-Read", 51267, []opRef{{"READ", 3510, 16623}}},
			{"Zipfian-Read", 138522, []opRef{{"READ", 1152, 2131}}},
			{"Uniform-50%Read-50%Update", 39584, []opRef{{"READ", 4022, 12159}, {"UPDATE", 4057, 12239}}},
		}},
	},
}
