// TensorFlow's graph.proto (Schemas/tensorflow.proto) compiled to C by protoc-c (scripts/generate-protos), and the
// addresses of its root descriptors: one schema a target, so a program
// links only the schemas it reads.
#ifndef TENSORFLOW_SCHEMA_H
#define TENSORFLOW_SCHEMA_H

#include <protobuf-c/protobuf-c.h>
#include "tensorflow.pb-c.h"

/// The stable addresses of the root message descriptors. Swift cannot take
/// the address of a C global constant beyond a single call, and the
/// decoder keeps descriptor pointers for the whole decode.
static inline const ProtobufCMessageDescriptor *proto_tensorflow_graph_descriptor(void) {
  return &tensorflow__graph_def__descriptor;
}

#endif
