// Caffe's caffe.proto (Schemas/caffe.proto) compiled to C by protoc-c (scripts/generate-protos), and the
// addresses of its root descriptors: one schema a target, so a program
// links only the schemas it reads.
#ifndef CAFFE_SCHEMA_H
#define CAFFE_SCHEMA_H

#include <protobuf-c/protobuf-c.h>
#include "caffe.pb-c.h"

/// The stable addresses of the root message descriptors. Swift cannot take
/// the address of a C global constant beyond a single call, and the
/// decoder keeps descriptor pointers for the whole decode.
static inline const ProtobufCMessageDescriptor *proto_caffe_net_descriptor(void) {
  return &caffe__net_parameter__descriptor;
}

static inline const ProtobufCMessageDescriptor *proto_caffe_blob_descriptor(void) {
  return &caffe__blob_proto__descriptor;
}

#endif
