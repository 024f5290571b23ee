// HDF5 for the HDF5 module: libhdf5's headers (Debian: libhdf5-dev) and the
// helpers Swift needs around them.
//
// libhdf5 is not linked: library.c loads it with dlopen the first time an
// HDF5 file is opened (`hdf5_load`), and defines the libhdf5 functions used
// here as calls through the addresses it looked up. Linking it would load
// libhdf5 and its dependencies (libcurl, gnutls, Kerberos: 37 libraries on
// Debian 12) into every run of convert and inspect, whatever they read,
// which took 7 of their 11 ms of start-up.
//
// HDF5's property-list, dataspace and datatype constants are macros that Swift
// cannot import (H5T_NATIVE_FLOAT expands to `(H5open(), H5T_NATIVE_FLOAT_g)`),
// so each one used is wrapped in a small function below. Swift calls only
// functions whose signature is the same in 1.10, 1.12 and 1.14; those whose
// name is a macro picking a versioned one (H5Lget_info) are called here in C.
// isolated_read.h reads variable-length strings in a child process.
#ifndef CHDF5_SHIM_H
#define CHDF5_SHIM_H

// Where pkg-config's hdf5 would point the compiler (the package is built
// without it, since it would also link the library).
#if __has_include(<hdf5.h>)
#include <hdf5.h>
#elif __has_include("/usr/include/hdf5/serial/hdf5.h")
#include "/usr/include/hdf5/serial/hdf5.h"
#elif __has_include("/opt/homebrew/include/hdf5.h")
#include "/opt/homebrew/include/hdf5.h"
#elif __has_include("/usr/local/include/hdf5.h")
#include "/usr/local/include/hdf5.h"
#else
#error "hdf5.h not found: install libhdf5-dev (scripts/bootstrap)"
#endif
#include <string.h>

/// Loads libhdf5 and sets it up (the HDF5 module calls it once per process): filter plugins off
/// (shared libraries named by a file's filter ids, which untrusted files must
/// not trigger, so datasets compressed with a filter the library lacks fail
/// to read). Returns 0, or -1 with the reason in `message` (`size` bytes).
/// Call before any other function here, with no other thread in them.
int hdf5_load(char *message, size_t size);

/// H5T_NATIVE_FLOAT: C `float` in memory; HDF5 converts any integer or
/// floating-point file type to it when reading.
hid_t hdf5_native_float(void);
/// H5T_C_S1: a one-byte C string type, to copy and resize for string reads.
hid_t hdf5_c_string(void);
/// H5P_FILE_ACCESS and H5P_LINK_ACCESS: property list classes.
hid_t hdf5_file_access_class(void);
hid_t hdf5_link_access_class(void);

/// H5P_DEFAULT: the default property list.
static inline hid_t hdf5_default_plist(void) { return H5P_DEFAULT; }
/// H5F_ACC_RDONLY: open a file read-only.
static inline unsigned hdf5_access_read_only(void) { return H5F_ACC_RDONLY; }
/// H5S_ALL: the whole dataspace (for H5Dread / H5Aread selections).
static inline hid_t hdf5_space_all(void) { return H5S_ALL; }
/// H5T_VARIABLE: the size that makes a string type variable-length.
static inline size_t hdf5_variable_size(void) { return H5T_VARIABLE; }

/// A new file access property list for reading untrusted files: file locking
/// off where the library allows it (1.10.7+; a read-only reader needs none and
/// locking fails on some file systems) and the "strong" close degree, so that
/// closing the file also closes anything still open in it. Negative on failure.
static inline hid_t hdf5_file_access(void) {
    hid_t list = H5Pcreate(hdf5_file_access_class());
    if (list < 0) return list;
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(list, 0, 1);
#endif
    if (H5Pset_fclose_degree(list, H5F_CLOSE_STRONG) < 0) {
        H5Pclose(list);
        return -1;
    }
    return list;
}

/// Turns off HDF5's automatic printing of its error stack to stderr for the
/// calling thread (the stack is per thread in thread-safe builds).
static inline void hdf5_silence_errors(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/// The H5Ewalk2 callback behind `hdf5_innermost_error`: keeps the first entry,
/// which walking upward is the most specific one.
static inline herr_t hdf5_keep_innermost(unsigned n, const H5E_error2_t *error, void *data) {
    if (n == 0 && error != NULL && error->desc != NULL) {
        char *buffer = (char *)((void **)data)[0];
        size_t size = *(size_t *)((void **)data)[1];
        strncpy(buffer, error->desc, size - 1);
        buffer[size - 1] = 0;
    }
    return 0;
}

/// Copies the description of the innermost (most specific) entry of the
/// calling thread's error stack into `buffer` ("" when the stack is empty),
/// then clears the stack.
static inline void hdf5_innermost_error(char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = 0;
    void *data[2] = {buffer, &size};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, hdf5_keep_innermost, data);
    H5Eclear2(H5E_DEFAULT);
}

/// The type of the link `name` from `location` (H5L_TYPE_HARD, _SOFT,
/// _EXTERNAL or a user-defined type), or -1 on failure. H5Lget_info is a macro
/// for H5Lget_info2 from 1.12 on, which Swift cannot call by that name.
static inline int hdf5_link_type(hid_t location, const char *name, hid_t link_access) {
    H5L_info_t info;
    if (H5Lget_info(location, name, &info, link_access) < 0) return -1;
    return (int)info.type;
}

/// The H5Pset_elink_cb callback behind `hdf5_link_access_without_external`:
/// refuses every external link traversal.
static inline herr_t hdf5_refuse_external_link(const char *parent_file, const char *parent_group,
                                               const char *child_file, const char *child_object,
                                               unsigned *acc_flags, hid_t fapl_id, void *op_data) {
    (void)parent_file; (void)parent_group; (void)child_file; (void)child_object;
    (void)acc_flags; (void)fapl_id; (void)op_data;
    return -1;
}

/// A new link access property list on which following an external link (to an
/// object in another file) fails; close it with H5Pclose. Negative on failure.
static inline hid_t hdf5_link_access_without_external(void) {
    hid_t list = H5Pcreate(hdf5_link_access_class());
    if (list < 0) return list;
    if (H5Pset_elink_cb(list, hdf5_refuse_external_link, NULL) < 0) {
        H5Pclose(list);
        return -1;
    }
    return list;
}

#endif
