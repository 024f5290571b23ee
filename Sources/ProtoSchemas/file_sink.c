#define _GNU_SOURCE
#include "ProtoSchemas.h"
#include <errno.h>
#include <fcntl.h>

// A ProtobufCBuffer whose append writes through stdio. protobuf-c calls
// append with each packed piece: small tags and varints, and whole weight
// arrays, which stdio passes to write(2) without staging when they are large.
typedef struct {
  ProtobufCBuffer base;
  FILE *file;
  long long written;
  long long flushed;  // bytes already handed to the disk (Linux only)
  int failed;
} FileSink;

// Every this many bytes the sink starts the disk writing what it has written
// so far, without waiting: the caller's final fsync then waits for the last
// stretch only instead of the whole file.
static const long long writeback_stride = 8LL << 20;

static void file_sink_start_writeback(FileSink *sink) {
#ifdef __linux__
  if (sink->written - sink->flushed < writeback_stride) return;
  if (fflush(sink->file) != 0) {
    sink->failed = 1;
    return;
  }
  // Advisory: a failure here (say, a file system without it) changes nothing.
  (void)sync_file_range(fileno(sink->file), sink->flushed, sink->written - sink->flushed, SYNC_FILE_RANGE_WRITE);
  sink->flushed = sink->written;
#else
  (void)sink;
#endif
}

static void file_sink_append(ProtobufCBuffer *buffer, size_t length, const uint8_t *data) {
  FileSink *sink = (FileSink *)buffer;
  if (sink->failed || length == 0) return;
  if (fwrite(data, 1, length, sink->file) != length) {
    sink->failed = 1;
    return;
  }
  sink->written += (long long)length;
  file_sink_start_writeback(sink);
}

long long proto_pack_to_file(const ProtobufCMessage *message, FILE *file) {
  FileSink sink = { { file_sink_append }, file, 0, 0, 0 };
  protobuf_c_message_pack_to_buffer(message, &sink.base);
  if (sink.failed) {
    if (errno == 0) errno = EIO;
    return -1;
  }
  return sink.written;
}
