#ifndef FUZZ_SUPPORT_C_H
#define FUZZ_SUPPORT_C_H

/// Makes every child forked from now on (the HDF5 reader's isolated string
/// reads) a plain process again: no libFuzzer death callback, default
/// handlers for crash signals and SIGALRM, killed when the fuzzer dies, and
/// killed after `milliseconds` of wall time (0: no limit).
void fuzz_guard_forked_children(unsigned milliseconds);

#endif
