// The CHDF5 module: libhdf5's API as the HDF5 module uses it (shim.h), loaded
// at first use (library.c), and the reads that run in a child process
// (isolated_read.h).
#ifndef CHDF5_H
#define CHDF5_H

#include "shim.h"
#include "isolated_read.h"

#endif
