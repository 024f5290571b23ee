#include "ProtoSchemas.h"
#include <errno.h>

// A ProtobufCBuffer whose append writes through stdio. protobuf-c calls
// append with each packed piece: small tags and varints, and whole weight
// arrays, which stdio passes to write(2) without staging when they are large.
typedef struct {
  ProtobufCBuffer base;
  FILE *file;
  long long written;
  int failed;
} FileSink;

static void file_sink_append(ProtobufCBuffer *buffer, size_t length, const uint8_t *data) {
  FileSink *sink = (FileSink *)buffer;
  if (sink->failed || length == 0) return;
  if (fwrite(data, 1, length, sink->file) != length) {
    sink->failed = 1;
    return;
  }
  sink->written += (long long)length;
}

long long proto_pack_to_file(const ProtobufCMessage *message, FILE *file) {
  FileSink sink = { { file_sink_append }, file, 0, 0 };
  protobuf_c_message_pack_to_buffer(message, &sink.base);
  if (sink.failed) {
    if (errno == 0) errno = EIO;
    return -1;
  }
  return sink.written;
}
