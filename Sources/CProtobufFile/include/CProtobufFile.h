// A protobuf-c buffer that packs a message straight into a file, streaming
// large arrays from where they live (or as they are computed) instead of
// building the encoded message in memory first. Used by `MessageFile` and
// `StreamedFields` (Sources/Protobuf).
#ifndef C_PROTOBUF_FILE_H
#define C_PROTOBUF_FILE_H

#include <stdio.h>
#include <protobuf-c/protobuf-c.h>

/// Every this many bytes written to a file that is to be synced, the writers
/// start the disk on them without waiting, so that the final fsync waits for
/// the last stretch only.
#define PROTO_WRITEBACK_STRIDE (8LL << 20)

/// The sink that `proto_pack_to_file` writes through.
typedef struct ProtoFileSink ProtoFileSink;

/// Called for each array protobuf-c packs whole (a packed float field, a
/// bytes field): returns 0 when `data` is not one of the caller's
/// placeholders (the sink writes the array itself), 1 when it is and the
/// function reserved its `length` bytes (`proto_sink_reserve`), to fill
/// them (`proto_write_at`) then or once packing is done, -1 when that
/// failed (errno is set).
typedef int (*ProtoStreamFunction)(void *context, const uint8_t *data, size_t length, ProtoFileSink *sink);

/// Reserves the next `length` bytes of the file behind `sink` for the
/// caller to fill with `proto_write_at`: the sink's own writes continue
/// after them. Returns the file descriptor and sets `*offset` to the file
/// offset of the first reserved byte; -1 when that failed (errno is set).
int proto_sink_reserve(ProtoFileSink *sink, size_t length, long long *offset);

/// Writes all `length` bytes at `offset` of the file (pwrite): safe to call
/// from several threads at once for distinct ranges. Returns 0, or -1
/// (errno is set).
int proto_write_at(int descriptor, const void *data, size_t length, long long offset);

/// Starts the disk writing `length` bytes of the file from `offset`,
/// without waiting (Linux; advisory, nothing elsewhere), so that the final
/// fsync has little left to wait for.
void proto_start_writeback(int descriptor, long long offset, long long length);

/// Packs `message` into `file` through protobuf-c's own serializer, streaming
/// each field's bytes (weights included) from where they live in memory: no
/// second copy of the message is built. Arrays at the placeholder addresses
/// `stream` recognizes are written by it, as they are computed (`stream`
/// may be NULL). With `writeback` non-zero, the disk is started on every
/// `PROTO_WRITEBACK_STRIDE` bytes the sink writes (for a file about to be
/// synced). Returns the number of bytes written, or -1 when a write failed
/// (errno is set, EIO when the stream function failed).
long long proto_pack_to_file(const ProtobufCMessage *message, FILE *file, int writeback, ProtoStreamFunction stream,
                             void *context);

#endif
