// ONNX's onnx.proto (Schemas/onnx.proto) compiled to C by protoc-c (scripts/generate-protos), and the
// addresses of its root descriptors: one schema a target, so a program
// links only the schemas it reads.
#ifndef ONNX_SCHEMA_H
#define ONNX_SCHEMA_H

#include <protobuf-c/protobuf-c.h>
#include "onnx.pb-c.h"

/// The stable addresses of the root message descriptors. Swift cannot take
/// the address of a C global constant beyond a single call, and the
/// decoder keeps descriptor pointers for the whole decode.
static inline const ProtobufCMessageDescriptor *proto_onnx_model_descriptor(void) {
  return &onnx__model_proto__descriptor;
}

#endif
