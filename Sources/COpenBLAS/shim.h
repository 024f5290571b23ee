// OpenBLAS (Debian: libopenblas-dev) for the runtime's matrix products.
#include <cblas.h>
