// libhdf5, loaded when first needed rather than linked (see shim.h).
//
// Each libhdf5 function the package calls is defined here under its own name
// and signature, as a call through the address dlsym found for it, so the
// callers (Swift and the inline helpers) are written as if the library were
// linked. The definitions are hidden: they serve this program only, and
// libhdf5's calls to its own functions stay inside libhdf5.
#define _GNU_SOURCE
#include "shim.h"

#include <dlfcn.h>
#include <library_loading.h>
#include <stdio.h>

// The functions: return type, name, parameters, arguments. Names that are
// macros for versioned functions (H5Lget_info -> H5Lget_info2 from 1.12 on)
// expand here to the function the headers mean, and are looked up by that name.
#if H5_VERSION_GE(1, 10, 7)
#define HDF5_FILE_LOCKING(X) \
    X(herr_t, H5Pset_file_locking, (hid_t fapl, hbool_t use, hbool_t ignore), (fapl, use, ignore))
#else
#define HDF5_FILE_LOCKING(X)
#endif

#define HDF5_FUNCTIONS(X) \
    HDF5_FILE_LOCKING(X) \
    X(herr_t, H5open, (void), ()) \
    X(herr_t, H5check_version, (unsigned major, unsigned minor, unsigned release), (major, minor, release)) \
    X(herr_t, H5get_libversion, (unsigned *major, unsigned *minor, unsigned *release), (major, minor, release)) \
    X(herr_t, H5PLset_loading_state, (unsigned int mask), (mask)) \
    X(herr_t, H5Eset_auto2, (hid_t stack, H5E_auto2_t func, void *data), (stack, func, data)) \
    X(herr_t, H5Ewalk2, (hid_t stack, H5E_direction_t direction, H5E_walk2_t func, void *data), \
      (stack, direction, func, data)) \
    X(herr_t, H5Eclear2, (hid_t stack), (stack)) \
    X(htri_t, H5Fis_hdf5, (const char *name), (name)) \
    X(hid_t, H5Fopen, (const char *name, unsigned flags, hid_t fapl), (name, flags, fapl)) \
    X(herr_t, H5Fget_filesize, (hid_t file, hsize_t *size), (file, size)) \
    X(herr_t, H5Fclose, (hid_t file), (file)) \
    X(hid_t, H5Pcreate, (hid_t cls), (cls)) \
    X(herr_t, H5Pclose, (hid_t list), (list)) \
    X(herr_t, H5Pset_fclose_degree, (hid_t fapl, H5F_close_degree_t degree), (fapl, degree)) \
    X(herr_t, H5Pset_elink_cb, (hid_t lapl, H5L_elink_traverse_t func, void *data), (lapl, func, data)) \
    X(int, H5Pget_nfilters, (hid_t list), (list)) \
    X(H5D_layout_t, H5Pget_layout, (hid_t list), (list)) \
    X(H5Z_filter_t, H5Pget_filter2, (hid_t list, unsigned index, unsigned int *flags, size_t *count, \
      unsigned values[], size_t size, char name[], unsigned *config), \
      (list, index, flags, count, values, size, name, config)) \
    X(int, H5Pget_external_count, (hid_t list), (list)) \
    X(int, H5Pget_chunk, (hid_t list, int rank, hsize_t dims[]), (list, rank, dims)) \
    X(htri_t, H5Zfilter_avail, (H5Z_filter_t id), (id)) \
    X(herr_t, H5Lget_info, (hid_t location, const char *name, H5L_info_t *info, hid_t lapl), \
      (location, name, info, lapl)) \
    X(htri_t, H5Lexists, (hid_t location, const char *name, hid_t lapl), (location, name, lapl)) \
    X(ssize_t, H5Lget_name_by_idx, (hid_t location, const char *group, H5_index_t index, H5_iter_order_t order, \
      hsize_t n, char *name, size_t size, hid_t lapl), (location, group, index, order, n, name, size, lapl)) \
    X(herr_t, H5Gget_info, (hid_t location, H5G_info_t *info), (location, info)) \
    X(hid_t, H5Oopen, (hid_t location, const char *name, hid_t lapl), (location, name, lapl)) \
    X(herr_t, H5Oclose, (hid_t object), (object)) \
    X(H5I_type_t, H5Iget_type, (hid_t id), (id)) \
    X(hid_t, H5Dget_type, (hid_t dataset), (dataset)) \
    X(hid_t, H5Dget_space, (hid_t dataset), (dataset)) \
    X(hid_t, H5Dget_create_plist, (hid_t dataset), (dataset)) \
    X(herr_t, H5Dread, (hid_t dataset, hid_t memory_type, hid_t memory_space, hid_t file_space, hid_t dxpl, \
      void *buffer), (dataset, memory_type, memory_space, file_space, dxpl, buffer)) \
    X(htri_t, H5Aexists, (hid_t object, const char *name), (object, name)) \
    X(hid_t, H5Aopen, (hid_t object, const char *name, hid_t aapl), (object, name, aapl)) \
    X(hid_t, H5Aget_type, (hid_t attribute), (attribute)) \
    X(hid_t, H5Aget_space, (hid_t attribute), (attribute)) \
    X(herr_t, H5Aread, (hid_t attribute, hid_t type, void *buffer), (attribute, type, buffer)) \
    X(herr_t, H5Aclose, (hid_t attribute), (attribute)) \
    X(int, H5Sget_simple_extent_ndims, (hid_t space), (space)) \
    X(int, H5Sget_simple_extent_dims, (hid_t space, hsize_t dims[], hsize_t max[]), (space, dims, max)) \
    X(hssize_t, H5Sget_simple_extent_npoints, (hid_t space), (space)) \
    X(H5S_class_t, H5Sget_simple_extent_type, (hid_t space), (space)) \
    X(herr_t, H5Sclose, (hid_t space), (space)) \
    X(hid_t, H5Tcopy, (hid_t type), (type)) \
    X(H5T_class_t, H5Tget_class, (hid_t type), (type)) \
    X(size_t, H5Tget_size, (hid_t type), (type)) \
    X(herr_t, H5Tset_size, (hid_t type, size_t size), (type, size)) \
    X(htri_t, H5Tis_variable_str, (hid_t type), (type)) \
    X(H5T_str_t, H5Tget_strpad, (hid_t type), (type)) \
    X(H5T_cset_t, H5Tget_cset, (hid_t type), (type)) \
    X(herr_t, H5Tset_cset, (hid_t type, H5T_cset_t cset), (type, cset)) \
    X(herr_t, H5Tclose, (hid_t type), (type))

// The global ids behind the constant macros (H5T_NATIVE_FLOAT is H5T_NATIVE_FLOAT_g).
#define HDF5_GLOBALS(X) \
    X(hdf5_native_float, H5T_NATIVE_FLOAT_g) \
    X(hdf5_c_string, H5T_C_S1_g) \
    X(hdf5_file_access_class, H5P_CLS_FILE_ACCESS_ID_g) \
    X(hdf5_link_access_class, H5P_CLS_LINK_ACCESS_ID_g)

#define HDF5_NAME(name) HDF5_QUOTE(name)
#define HDF5_QUOTE(name) #name

static struct {
#define HDF5_FIELD(type, name, parameters, arguments) type(*name) parameters;
    HDF5_FUNCTIONS(HDF5_FIELD)
#define HDF5_GLOBAL_FIELD(accessor, symbol) const hid_t *accessor;
    HDF5_GLOBALS(HDF5_GLOBAL_FIELD)
} library;

#define HDF5_DEFINE(type, name, parameters, arguments) \
    __attribute__((visibility("hidden"))) type name parameters { return library.name arguments; }
HDF5_FUNCTIONS(HDF5_DEFINE)

#define HDF5_DEFINE_GLOBAL(accessor, symbol) \
    hid_t accessor(void) { return *library.accessor; }
HDF5_GLOBALS(HDF5_DEFINE_GLOBAL)

// The names libhdf5 has under the usual packagings, the first found wins:
// Debian's serial build (its soname, then the -dev package's link), other
// Linux distributions, Homebrew (whose folder dlopen does not search).
static const char *const candidates[] = {
#ifdef __APPLE__
    "libhdf5.dylib", "/opt/homebrew/lib/libhdf5.dylib", "/usr/local/lib/libhdf5.dylib",
#else
    "libhdf5_serial.so.103", "libhdf5_serial.so", "libhdf5.so.310", "libhdf5.so.200", "libhdf5.so.103", "libhdf5.so",
#endif
};

int hdf5_load(char *message, size_t size) {
    char first[256];
    void *handle = library_open(candidates, sizeof candidates / sizeof candidates[0], NULL, 0, first, sizeof first);
    if (handle == NULL) {
        snprintf(message, size, "cannot load libhdf5 (%s; other names tried too): install it (Debian: "
                 "libhdf5-dev, or run scripts/bootstrap)", first);
        return -1;
    }
#define HDF5_LOOKUP(type, name, parameters, arguments) \
    if ((*(void **)&library.name = dlsym(handle, HDF5_NAME(name))) == NULL) { \
        snprintf(message, size, "libhdf5 has no %s: not the HDF5 %d.%d this program was built for", \
                 HDF5_NAME(name), H5_VERS_MAJOR, H5_VERS_MINOR); \
        return -1; \
    }
    HDF5_FUNCTIONS(HDF5_LOOKUP)
#define HDF5_LOOKUP_GLOBAL(accessor, symbol) \
    if ((library.accessor = (const hid_t *)dlsym(handle, HDF5_NAME(symbol))) == NULL) { \
        snprintf(message, size, "libhdf5 has no %s", HDF5_NAME(symbol)); \
        return -1; \
    }
    HDF5_GLOBALS(HDF5_LOOKUP_GLOBAL)
    // Structures such as H5L_info_t differ between minor versions.
    unsigned major = 0, minor = 0, release = 0;
    if (H5get_libversion(&major, &minor, &release) < 0 || major != H5_VERS_MAJOR || minor != H5_VERS_MINOR) {
        snprintf(message, size, "libhdf5 is version %u.%u.%u, this program was built for %d.%d", major, minor,
                 release, H5_VERS_MAJOR, H5_VERS_MINOR);
        return -1;
    }
    if (H5open() < 0 || H5PLset_loading_state(0) < 0) {
        snprintf(message, size, "libhdf5 did not start");
        return -1;
    }
    return 0;
}

