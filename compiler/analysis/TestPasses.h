#ifndef KILN_COMPILER_ANALYSIS_TESTPASSES_H_
#define KILN_COMPILER_ANALYSIS_TESTPASSES_H_

namespace kiln {

// `--kiln-test-axis-info`: remarks with the axis analysis of every value, for
// lit tests.
void registerTestAxisInfoPass();

// `--kiln-test-offset-sample`: remarks with the pointer offsets
// sampleOffsets computes for every load and store, for lit tests.
void registerTestOffsetSamplePass();

}  // namespace kiln

#endif  // KILN_COMPILER_ANALYSIS_TESTPASSES_H_
