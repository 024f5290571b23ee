// PNG and JPEG decoding (Debian: libpng-dev, libturbojpeg0-dev) for ImageFiles.
// Only libpng's simplified API (png_image) is used: its setjmp/longjmp error
// handling stays inside libpng, which Swift could not survive otherwise.
#include <png.h>
#include <turbojpeg.h>
