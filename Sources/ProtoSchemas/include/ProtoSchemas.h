// The project's protobuf schemas compiled to C by protoc-c (see
// scripts/generate-protos), plus the small C helpers that protobuf-c needs
// from us: a buffer that packs a message straight into a file.
#ifndef PROTO_SCHEMAS_H
#define PROTO_SCHEMAS_H

#include <stdio.h>
#include <protobuf-c/protobuf-c.h>
#include "coreml.pb-c.h"
#include "caffe.pb-c.h"
#include "tensorflow.pb-c.h"

/// Packs `message` into `file` through protobuf-c's own serializer, streaming
/// each field's bytes (weights included) from where they live in memory: no
/// second copy of the message is built. Returns the number of bytes written,
/// or -1 when a write failed (errno is set).
long long proto_pack_to_file(const ProtobufCMessage *message, FILE *file);

/// The stable addresses of the root message descriptors. Swift cannot take
/// the address of a C global constant beyond a single call, and the
/// decoder keeps descriptor pointers for the whole decode.
static inline const ProtobufCMessageDescriptor *proto_coreml_model_descriptor(void) {
  return &core_ml__specification__model__descriptor;
}

static inline const ProtobufCMessageDescriptor *proto_caffe_net_descriptor(void) {
  return &caffe__net_parameter__descriptor;
}

static inline const ProtobufCMessageDescriptor *proto_caffe_blob_descriptor(void) {
  return &caffe__blob_proto__descriptor;
}

static inline const ProtobufCMessageDescriptor *proto_tensorflow_graph_descriptor(void) {
  return &tensorflow__graph_def__descriptor;
}

#endif
