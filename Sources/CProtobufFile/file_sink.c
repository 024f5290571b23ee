#define _GNU_SOURCE
#include "CProtobufFile.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

// A ProtobufCBuffer whose append writes through stdio. protobuf-c calls
// append with each packed piece: small tags and varints, and whole weight
// arrays, which stdio passes to write(2) without staging when they are large.
// An array whose address the caller registered as a placeholder is handed
// to the caller's stream function instead, which reserves its stretch of the
// file and fills it piece by piece, possibly from several threads.
struct ProtoFileSink {
  ProtobufCBuffer base;
  FILE *file;
  ProtoStreamFunction stream;
  void *context;
  long long written;
  long long flushed;  // up to here: handed to the disk (Linux only), or reserved for the caller
  int writeback;      // start the disk every PROTO_WRITEBACK_STRIDE bytes
  int failed;
};

static void file_sink_start_writeback(ProtoFileSink *sink) {
#ifdef __linux__
  if (!sink->writeback || sink->written - sink->flushed < PROTO_WRITEBACK_STRIDE) return;
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

static void file_sink_write(ProtoFileSink *sink, const void *data, size_t length) {
  if (fwrite(data, 1, length, sink->file) != length) {
    sink->failed = 1;
    return;
  }
  sink->written += (long long)length;
  file_sink_start_writeback(sink);
}

int proto_sink_reserve(ProtoFileSink *sink, size_t length, long long *offset) {
  if (sink->failed) return -1;
  off_t here;
  if (fflush(sink->file) != 0 || (here = ftello(sink->file)) < 0 || fseeko(sink->file, here + (off_t)length, SEEK_SET) != 0) {
    sink->failed = 1;
    return -1;
  }
  *offset = (long long)here;
  // The caller fills the stretch and starts the disk on it; the sink's own
  // writeback covers what it writes itself (what it wrote before stays for
  // the final fsync: headers between arrays, a few bytes).
  sink->written += (long long)length;
  sink->flushed = sink->written;
  return fileno(sink->file);
}

int proto_write_at(int descriptor, const void *data, size_t length, long long offset) {
  const char *bytes = data;
  while (length > 0) {
    ssize_t count = pwrite(descriptor, bytes, length, (off_t)offset);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      if (count == 0) errno = EIO;
      return -1;
    }
    bytes += count;
    length -= (size_t)count;
    offset += count;
  }
  return 0;
}

void proto_start_writeback(int descriptor, long long offset, long long length) {
#ifdef __linux__
  // Advisory, as in the sink.
  (void)sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE);
#else
  (void)descriptor;
  (void)offset;
  (void)length;
#endif
}

static void file_sink_append(ProtobufCBuffer *buffer, size_t length, const uint8_t *data) {
  ProtoFileSink *sink = (ProtoFileSink *)buffer;
  if (sink->failed || length == 0) return;
  if (sink->stream != NULL) {
    long long before = sink->written;
    int handled = sink->stream(sink->context, data, length, sink);
    if (handled < 0 || (handled > 0 && sink->written - before != (long long)length)) {
      sink->failed = 1;
    }
    if (handled != 0) return;
  }
  file_sink_write(sink, data, length);
}

long long proto_pack_to_file(const ProtobufCMessage *message, FILE *file, int writeback, ProtoStreamFunction stream,
                             void *context) {
  ProtoFileSink sink = { { file_sink_append }, file, stream, context, 0, 0, writeback, 0 };
  errno = 0;
  protobuf_c_message_pack_to_buffer(message, &sink.base);
  if (sink.failed) {
    if (errno == 0) errno = EIO;
    return -1;
  }
  return sink.written;
}
