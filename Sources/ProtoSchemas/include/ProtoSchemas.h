// The project's protobuf schemas compiled to C by protoc-c (see
// scripts/generate-protos), and the addresses of their root descriptors.
#ifndef PROTO_SCHEMAS_H
#define PROTO_SCHEMAS_H

#include <protobuf-c/protobuf-c.h>
#include "coreml.pb-c.h"
#include "caffe.pb-c.h"
#include "tensorflow.pb-c.h"
#include "onnx.pb-c.h"

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

static inline const ProtobufCMessageDescriptor *proto_onnx_model_descriptor(void) {
  return &onnx__model_proto__descriptor;
}

#endif
