// zlib's raw inflate and CRC-32: the deflated associated files of TFLite models (TFLiteFrontend's AssociatedFiles).
#include <zlib.h>
