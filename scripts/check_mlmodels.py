#!/usr/bin/env python3
"""Independently checks Core ML .mlmodel files with coremltools' own schema.

Usage: .venv/bin/python scripts/check_mlmodels.py DIR

Every X.mlmodel under DIR (recursively) is decoded with coremltools'
Model_pb2 and checked for structural validity: a neuralNetwork or
neuralNetworkClassifier, layers named uniquely and in topological order,
model outputs produced by layers, consistent classifier outputs and labels,
preprocessing bound to image inputs; or a pipeline of such a network and a
nonMaximumSuppression model (a detector), checked as Core ML's
PipelineValidator and NonMaximumSuppressionValidator check them: each
model's inputs are pipeline inputs or earlier outputs of the same type
(data type, rank, fixed shape), the suppression's feature names name its
inputs and outputs, thresholds in range, double arrays before
specification 5, outputs of two dimensions (shape or shape range, the row
ranges alike), the class dimension holding the labels.

If X.expect.json sits beside it, every key it states is compared with the
spec (all keys optional): specificationVersion, kind, inputs, outputs (lists
in order of {name, type, width, height, colorSpace, shape, dataType,
keyType}), predictedFeatureName, predictedProbabilitiesName, classLabels,
preprocessing (list of {featureName, scaler: {...}, meanImageCount}),
metadata, layerCount, arrayInputShapeMapping and imageInputShapeMapping
(enum names or numbers), pipeline ({names, kinds}) and
nonMaximumSuppression (fields of that message, compared as layer params
are), and layers: entries matched by name with optional
type (the `layer` oneof member), inputs, outputs, params (dotted protobuf
field paths into the layer's params message; numbers with relative
tolerance 1e-6, enums by name or number, dicts compare sub-messages, {}
means "is set", a number in a path indexes a repeated field) and
weightCounts (dotted path to a WeightParams -> number of weights).
A top-level weightsLike {"reference": path, "mode": ...} compares every
WeightParams of every layer with those of the same layer in the reference
.mlmodel (written by coremltools): "identical" asks for the same message
(float32, float16 or quantized: bytes, bits, scales, tables); "noWorseError"
with "original": path (the float model both were made from) asks for lookup
tables of the same size whose expanded values are no further from the
original (squared error) than the reference's.
An X.expect.json without X.mlmodel counts as a failed model.

Prints one line per failure, `FILE: path.to.field: expected X, got Y` (or a
description), then `check_mlmodels: N passed, M failed`. Exits 1 if any
model failed or DIR has no .mlmodel file, else 0.
"""

import contextlib
import json
import logging
import math
import os
import sys
from pathlib import Path


@contextlib.contextmanager
def quiet_imports():
    """Silences import-time noise: coremltools' "Failed to load _MLModelProxy"
    warnings on Linux, and TensorFlow's C++ log lines when it is installed
    (coremltools imports it). Both go to file descriptor 2, so that is
    pointed at /dev/null meanwhile; errors still surface once it is back."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def import_coreml_proto():
    with quiet_imports():
        from coremltools.proto import Model_pb2
    return Model_pb2


Model_pb2 = import_coreml_proto()

NEURAL_NETWORK_KINDS = ("neuralNetwork", "neuralNetworkClassifier")
REL_TOL = 1e-6
ABS_TOL = 1e-12


class Report:
    """Collects the failures of one model file."""

    def __init__(self, file):
        self.file = file
        self.lines = []

    def fail(self, path, expected, got):
        self.lines.append(f"{self.file}: {path}: expected {show(expected)}, got {show(got)}")

    def error(self, path, text):
        self.lines.append(f"{self.file}: {path}: {text}")

    @property
    def ok(self):
        return not self.lines


class Plain(str):
    """A description shown as is in a failure line (not quoted like a value)."""


def show(value):
    """Formats a value for a failure line (JSON-like, readable)."""
    if isinstance(value, Plain):
        return str(value)
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def values_equal(expected, got):
    if is_number(expected) and is_number(got):
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(map(values_equal, expected, got))
    return expected == got


# ---------------------------------------------------------------------------
# Feature descriptions

def feature_type_name(feature):
    """'image', 'multiArray', 'dictionary', 'string', 'int64', 'double', ..."""
    which = feature.type.WhichOneof("Type")
    return which[: -len("Type")] if which else None


def enum_name(message, field):
    descriptor = message.DESCRIPTOR.fields_by_name[field].enum_type
    number = getattr(message, field)
    value = descriptor.values_by_number.get(number)
    return value.name if value else number


def feature_summary(feature):
    """The facts of a FeatureDescription that expect.json entries can state."""
    summary = {"name": feature.name, "type": feature_type_name(feature)}
    kind = summary["type"]
    if kind == "image":
        image = feature.type.imageType
        summary.update(width=image.width, height=image.height,
                       colorSpace=enum_name(image, "colorSpace"))
    elif kind == "multiArray":
        array = feature.type.multiArrayType
        summary.update(shape=list(array.shape), dataType=enum_name(array, "dataType"))
        if array.WhichOneof("ShapeFlexibility") == "shapeRange":
            summary["shapeRange"] = [[r.lowerBound, r.upperBound] for r in array.shapeRange.sizeRanges]
    if feature.type.isOptional:
        summary["isOptional"] = True
    elif kind == "dictionary":
        key = feature.type.dictionaryType.WhichOneof("KeyType")
        summary["keyType"] = key[: -len("KeyType")] if key else None
    return summary


# ---------------------------------------------------------------------------
# Structural checks (always run)

def network_of(spec):
    return getattr(spec, spec.WhichOneof("Type"))


def class_labels(network):
    which = network.WhichOneof("ClassLabels")
    return (which, list(getattr(network, which).vector)) if which else (None, [])


def check_structure(spec, report):
    """Checks what every model the project writes must satisfy."""
    if spec.specificationVersion < 1:
        report.fail("specificationVersion", Plain(">= 1"), spec.specificationVersion)
    kind = spec.WhichOneof("Type")
    if kind == "pipeline":
        check_detector_pipeline(spec, report)
        return
    if kind not in NEURAL_NETWORK_KINDS:
        report.fail("Type", Plain(" or ".join(NEURAL_NETWORK_KINDS + ("pipeline",))), kind)
        return
    network = network_of(spec)
    produced = check_layers(spec, network, report)
    check_outputs_produced(spec, network, produced, report)
    if kind == "neuralNetworkClassifier":
        check_classifier(spec, network, report)
    check_preprocessing(spec, network, report)


def array_rank_and_shape(feature):
    array = feature.type.multiArrayType
    if array.WhichOneof("ShapeFlexibility") == "shapeRange":
        return len(array.shapeRange.sizeRanges), None
    return len(array.shape), list(array.shape)


def same_type(a, b):
    """Core ML's Specification::isEquivalent on two features' types (the
    optional flag is not compared, as Core ML does not)."""
    kind = feature_type_name(a)
    if kind != feature_type_name(b):
        return False
    if kind == "multiArray":
        (rank_a, shape_a), (rank_b, shape_b) = array_rank_and_shape(a), array_rank_and_shape(b)
        return (a.type.multiArrayType.dataType == b.type.multiArrayType.dataType and rank_a == rank_b
                and (shape_a is None or shape_b is None or shape_a == shape_b))
    if kind == "image":
        x, y = a.type.imageType, b.type.imageType
        return (x.width, x.height, x.colorSpace) == (y.width, y.height, y.colorSpace)
    return True


def check_detector_pipeline(spec, report):
    """A detector: a neural network, then non-maximum suppression."""
    models = list(spec.pipeline.models)
    kinds = [model.WhichOneof("Type") for model in models]
    if kinds != ["neuralNetwork", "nonMaximumSuppression"]:
        report.fail("pipeline.models", ["neuralNetwork", "nonMaximumSuppression"], kinds)
        return
    names = list(spec.pipeline.names)
    if names and (len(names) != len(models) or len(set(names)) != len(names)):
        report.error("pipeline.names", f"{names}: one unique name per model")
    available = {feature.name: feature for feature in spec.description.input}
    for index, model in enumerate(models):
        if model.specificationVersion > spec.specificationVersion:
            report.fail(f"pipeline.models[{index}].specificationVersion", Plain(f"<= {spec.specificationVersion}"), model.specificationVersion)
        for feature in model.description.input:
            known = available.get(feature.name)
            if known is None:
                report.error(f"pipeline.models[{index}].inputs[{feature.name}]", "neither a pipeline input nor an earlier model's output")
            elif not same_type(feature, known):
                report.error(f"pipeline.models[{index}].inputs[{feature.name}]", "type differs from the pipeline input or earlier output")
        sub = Report(report.file)
        if index == 0:
            check_structure(model, sub)
        else:
            check_suppression(model, sub)
        for line in sub.lines:
            report.error(f"pipeline.models[{index}]", line[len(f"{report.file}: "):])
        available.update({feature.name: feature for feature in model.description.output})
    for feature in spec.description.output:
        known = available.get(feature.name)
        if known is None or not same_type(feature, known):
            report.error(f"outputs[{feature.name}]", "not an output of a model in the pipeline, or of another type")


def check_suppression(model, report):
    nms = model.nonMaximumSuppression
    inputs = {feature.name: feature for feature in model.description.input}
    outputs = {feature.name: feature for feature in model.description.output}
    named_inputs = [nms.confidenceInputFeatureName, nms.coordinatesInputFeatureName,
                    nms.iouThresholdInputFeatureName, nms.confidenceThresholdInputFeatureName]
    for name, feature in inputs.items():
        if feature.type.isOptional:
            report.error(f"inputs[{name}]", "optional: Core ML takes optional inputs only in networks and pipelines")
        if name not in named_inputs:
            report.error(f"inputs[{name}]", "not named by any of the suppression's input feature names")
    for name, kinds in [(nms.confidenceInputFeatureName, "multiArray"), (nms.coordinatesInputFeatureName, "multiArray"),
                        (nms.iouThresholdInputFeatureName, "double"), (nms.confidenceThresholdInputFeatureName, "double")]:
        required = kinds == "multiArray"
        if name in inputs and feature_type_name(inputs[name]) != kinds:
            report.fail(f"inputs[{name}].type", kinds, feature_type_name(inputs[name]))
        elif required and name not in inputs:
            report.error(f"inputs[{name}]", "missing")
    arrays = [inputs.get(nms.confidenceInputFeatureName), inputs.get(nms.coordinatesInputFeatureName)]
    for name in outputs:
        if name not in (nms.confidenceOutputFeatureName, nms.coordinatesOutputFeatureName):
            report.error(f"outputs[{name}]", "not named by the suppression's output feature names")
    kept = [outputs.get(nms.confidenceOutputFeatureName), outputs.get(nms.coordinatesOutputFeatureName)]
    if None in kept or None in arrays:
        report.error("outputs", "the confidence and coordinates outputs must be described")
        return
    types = {enum_name(f.type.multiArrayType, "dataType") for f in arrays + kept}
    allowed = {"DOUBLE", "FLOAT32"} if model.specificationVersion >= 5 else {"DOUBLE"}
    if len(types) != 1 or not types <= allowed:
        report.fail("dataType", Plain(" or ".join(sorted(allowed)) + ", one for all four arrays"), sorted(types))
    if not 0.0 <= nms.iouThreshold <= 1.0:
        report.fail("iouThreshold", Plain("0 to 1"), nms.iouThreshold)
    if not nms.confidenceThreshold >= 0.0:
        report.fail("confidenceThreshold", Plain(">= 0"), nms.confidenceThreshold)
    ranks = [array_rank_and_shape(f)[0] for f in kept]
    if any(rank not in (0, 2) for rank in ranks):
        report.fail("outputs.rank", Plain("2 (or unstated)"), ranks)
        return
    ranges = [list(f.type.multiArrayType.shapeRange.sizeRanges) for f in kept]
    if all(ranges) and (ranges[0][0].lowerBound, ranges[0][0].upperBound) != (ranges[1][0].lowerBound, ranges[1][0].upperBound):
        report.error("outputs", "confidence and coordinates have different row ranges")
    labels = class_labels(nms)[1]
    if ranges[0] and labels and not (ranges[0][1].lowerBound <= len(labels) and (ranges[0][1].upperBound < 0 or len(labels) <= ranges[0][1].upperBound)):
        report.error("outputs.confidence", f"its class dimension does not hold the {len(labels)} labels")
    if ranges[1] and (ranges[1][1].lowerBound, ranges[1][1].upperBound) != (4, 4):
        report.fail("outputs.coordinates.columns", [4, 4], [ranges[1][1].lowerBound, ranges[1][1].upperBound])


def check_layers(spec, network, report):
    """Names, uniqueness and topological order; returns all produced blobs."""
    available = {feature.name for feature in spec.description.input}
    produced = set()
    seen = set()
    for index, layer in enumerate(network.layers):
        label = f"layers[{index}]"
        if not layer.name:
            report.error(f"{label}.name", "layer has no name")
        elif layer.name in seen:
            report.error(f"{label}.name", f"duplicate layer name {show(layer.name)}")
        else:
            label = f"layers[{layer.name}]"
        seen.add(layer.name)
        if layer.WhichOneof("layer") is None:
            report.error(f"{label}.layer", "no layer type set")
        for blob in layer.input:
            if blob not in available:
                report.error(f"{label}.input",
                             f"{show(blob)} is neither a model input nor an earlier layer's output")
        available.update(layer.output)
        produced.update(layer.output)
    return produced


def check_outputs_produced(spec, network, produced, report):
    description = spec.description
    for feature in description.output:
        if spec.WhichOneof("Type") == "neuralNetworkClassifier":
            if feature.name == description.predictedFeatureName:
                continue
            if (feature.name == description.predictedProbabilitiesName
                    and network.labelProbabilityLayerName in produced):
                continue
        if feature.name not in produced:
            report.error(f"outputs[{feature.name}]", "no layer produces this model output")


def check_classifier(spec, network, report):
    description = spec.description
    outputs = {feature.name: feature for feature in description.output}
    label_kind, labels = class_labels(network)
    if not labels:
        report.fail("classLabels.count", Plain("> 0"), 0)
    key = "string" if label_kind == "stringClassLabels" else "int64"
    label_output = outputs.get(description.predictedFeatureName)
    if label_output is None:
        report.fail("predictedFeatureName", Plain("an output name"), description.predictedFeatureName)
    elif feature_type_name(label_output) != key:
        report.fail(f"outputs[{label_output.name}].type", key, feature_type_name(label_output))
    probabilities = outputs.get(description.predictedProbabilitiesName)
    if probabilities is None:
        report.fail("predictedProbabilitiesName", Plain("an output name"),
                    description.predictedProbabilitiesName)
        return
    summary = feature_summary(probabilities)
    if summary["type"] != "dictionary":
        report.fail(f"outputs[{probabilities.name}].type", "dictionary", summary["type"])
    elif label_kind and summary["keyType"] != key:
        report.fail(f"outputs[{probabilities.name}].keyType", key, summary["keyType"])


def check_preprocessing(spec, network, report):
    images = [f.name for f in spec.description.input if feature_type_name(f) == "image"]
    for index, entry in enumerate(network.preprocessing):
        name = entry.featureName
        if name in images or (not name and len(images) == 1):
            continue
        report.fail(f"preprocessing[{index}].featureName", Plain(f"one of the image inputs {show(images)}"), name)


# ---------------------------------------------------------------------------
# Generic comparison of expected values with protobuf fields

class Node:
    """A point on a dotted path: `value` is `parent.field`, or with `indexed`
    one element of that repeated field; `field` is None for the root."""

    def __init__(self, parent, field, value, indexed=False):
        self.parent, self.field, self.value, self.indexed = parent, field, value, indexed


def compare_path(message, dotted, expected, path, report):
    """Compares `expected` with the field at `dotted` (a.b.0.c) below `message`."""
    node = Node(None, None, message)
    parts = dotted.split(".")
    for depth, part in enumerate(parts):
        where = ".".join(filter(None, [path] + parts[:depth + 1]))
        node = step(node, part, where, report)
        if node is None:
            return
        if depth < len(parts) - 1 and not is_present(node, where, report):
            return
    compare_node(node, expected, ".".join(filter(None, [path, dotted])), report)


def step(node, part, where, report):
    """Moves one path component down; returns the next Node or None."""
    field, value = node.field, node.value
    if field is not None and field.is_repeated and not node.indexed:
        if not part.isdigit() or int(part) >= len(value):
            report.error(where, f"no element {part} (length {len(value)})")
            return None
        return Node(node.parent, field, value[int(part)], indexed=True)
    if not hasattr(value, "DESCRIPTOR"):
        report.error(where, "is not a message")
        return None
    descriptor = value.DESCRIPTOR.fields_by_name.get(part)
    if descriptor is None:
        report.error(where, f"no such field in {value.DESCRIPTOR.name}")
        return None
    return Node(value, descriptor, getattr(value, part))


def is_present(node, where, report):
    """Fails (and returns False) when a path goes through an unset message/oneof."""
    field = node.field
    if field is None or node.indexed or field.is_repeated or not field.has_presence:
        return True
    if node.parent.HasField(field.name):
        return True
    oneof = field.containing_oneof
    got = node.parent.WhichOneof(oneof.name) if oneof else None
    report.fail(where, Plain("set"), Plain(f"{got} (oneof {oneof.name})" if oneof else "not set"))
    return False


def compare_node(node, expected, path, report):
    field, value = node.field, node.value
    if field is None or (node.indexed and field.message_type is not None):
        compare_message(value, expected, path, report)
    elif node.indexed:
        compare_scalar(value, field, expected, path, report)
    elif field.message_type is not None and field.message_type.GetOptions().map_entry:
        compare_map(value, field.message_type.fields_by_name["value"], expected, path, report)
    elif field.is_repeated:
        compare_repeated(value, field, expected, path, report)
    elif field.message_type is not None:
        if is_present(node, path, report):
            compare_message(value, expected, path, report)
    elif expected == {} and field.has_presence:
        if not node.parent.HasField(field.name):
            report.fail(path, Plain("set"), Plain("not set"))
    else:
        compare_scalar(value, field, expected, path, report)


def compare_message(message, expected, path, report):
    if not isinstance(expected, dict):
        report.fail(path, expected, Plain(f"a {message.DESCRIPTOR.name} message"))
        return
    for key, sub in expected.items():
        compare_path(message, key, sub, path, report)


def compare_repeated(values, field, expected, path, report):
    if not isinstance(expected, list):
        report.fail(path, expected, Plain(f"a list of {len(values)}"))
    elif field.message_type is not None:
        if len(values) != len(expected):
            report.fail(f"{path}.length", len(expected), len(values))
            return
        for index, (value, item) in enumerate(zip(values, expected)):
            compare_message(value, item, f"{path}.{index}", report)
    elif len(values) != len(expected) or not all(
            scalar_matches(v, field, e, path, report) for v, e in zip(values, expected)):
        report.fail(path, expected, [scalar_value(v, field) for v in values])


def compare_map(mapping, value_field, expected, path, report):
    if not isinstance(expected, dict):
        report.fail(path, expected, dict(mapping) if value_field.message_type is None else Plain("a map"))
        return
    if set(mapping.keys()) != set(expected.keys()):
        report.fail(f"{path}.keys", sorted(expected), sorted(mapping.keys()))
    for key, item in expected.items():
        if key in mapping:
            if value_field.message_type is None:
                compare_scalar(mapping[key], value_field, item, f"{path}.{key}", report)
            else:
                compare_message(mapping[key], item, f"{path}.{key}", report)


def scalar_value(value, field):
    """A protobuf scalar as shown in reports: enum by name, bytes by length."""
    if field.enum_type is not None:
        named = field.enum_type.values_by_number.get(value)
        return named.name if named else value
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return value


def scalar_matches(value, field, expected, path, report):
    """Whether a scalar field value equals `expected` (enum by name or number)."""
    if field.enum_type is not None and isinstance(expected, str):
        named = field.enum_type.values_by_name.get(expected)
        if named is None:
            report.error(path, f"{show(expected)} is not a value of enum {field.enum_type.name}")
            return True  # reported already
        return named.number == value
    if isinstance(value, bool) or isinstance(expected, bool):
        return isinstance(expected, bool) and isinstance(value, bool) and value == expected
    return values_equal(expected, value)


def compare_scalar(value, field, expected, path, report):
    if not scalar_matches(value, field, expected, path, report):
        report.fail(path, expected, scalar_value(value, field))


# ---------------------------------------------------------------------------
# expect.json checks

def weight_count(weights):
    """Number of weights stored in a WeightParams message."""
    if len(weights.floatValue):
        return len(weights.floatValue)
    if weights.float16Value:
        return len(weights.float16Value) // 2
    if weights.int8RawValue:
        return len(weights.int8RawValue)
    if weights.rawValue:
        bits = weights.quantization.numberOfBits
        return len(weights.rawValue) * 8 // bits if bits else len(weights.rawValue) // 4
    return 0


def resolve_message(message, dotted, path, report):
    """The sub-message at a dotted path (an unset one reads as empty), or None."""
    current = message
    for part in dotted.split("."):
        field = current.DESCRIPTOR.fields_by_name.get(part)
        if field is None or field.message_type is None or field.is_repeated:
            report.error(f"{path}.{dotted}", f"no message field {part} in {current.DESCRIPTOR.name}")
            return None
        current = getattr(current, part)
    return current


def expect_weight_counts(params, expected, path, report):
    for dotted, count in expected.items():
        weights = resolve_message(params, dotted, path, report)
        if weights is None:
            continue
        if weights.DESCRIPTOR.name != "WeightParams":
            report.error(f"{path}.{dotted}", f"is a {weights.DESCRIPTOR.name}, not WeightParams")
            continue
        got = weight_count(weights)
        if got != count:
            report.fail(f"{path}.{dotted}", count, got)


def weight_params(layer):
    """The set WeightParams fields of a layer's params message, by name."""
    params = getattr(layer, layer.WhichOneof("layer"))
    return {f.name: getattr(params, f.name) for f in params.DESCRIPTOR.fields
            if f.message_type is not None and f.message_type.name == "WeightParams" and not f.is_repeated
            and params.HasField(f.name)}


def expanded_lookup_table(weights):
    """A lookup-table WeightParams as float values (levels packed most
    significant bit first, as NeuralNetwork.proto says)."""
    bits = weights.quantization.numberOfBits
    table = list(weights.quantization.lookupTableQuantization.floatValue)
    stream = "".join(f"{byte:08b}" for byte in weights.rawValue)
    return [table[int(stream[start:start + bits], 2)] for start in range(0, len(stream) - bits + 1, bits)]


def expect_weights_like(network, want, report):
    reference = network_of(Model_pb2.Model.FromString(Path(want["reference"]).read_bytes()))
    original = None
    if want.get("original"):
        original = {l.name: l for l in network_of(Model_pb2.Model.FromString(Path(want["original"]).read_bytes())).layers}
    ours = {layer.name: layer for layer in network.layers}
    for layer in reference.layers:
        theirs = weight_params(layer)
        mine = weight_params(ours[layer.name]) if layer.name in ours else {}
        if sorted(theirs) != sorted(mine):
            report.fail(f"weightsLike.{layer.name}", sorted(theirs), sorted(mine))
            continue
        for name, expected in theirs.items():
            got, path = mine[name], f"weightsLike.{layer.name}.{name}"
            if want["mode"] == "identical":
                if got.SerializeToString(deterministic=True) != expected.SerializeToString(deterministic=True):
                    report.fail(path, Plain("the reference's WeightParams"), Plain("different values"))
                continue
            entries = (len(expected.quantization.lookupTableQuantization.floatValue), expected.quantization.numberOfBits)
            if (len(got.quantization.lookupTableQuantization.floatValue), got.quantization.numberOfBits) != entries:
                report.fail(f"{path}.table", entries, (len(got.quantization.lookupTableQuantization.floatValue),
                                                        got.quantization.numberOfBits))
                continue
            source = list(weight_params(original[layer.name])[name].floatValue)
            errors = [sum((a - b) ** 2 for a, b in zip(expanded_lookup_table(w)[:len(source)], source)) for w in (got, expected)]
            if errors[0] > errors[1] * (1 + 1e-6) + 1e-12:
                report.fail(f"{path}.squaredError", Plain(f"at most {errors[1]:.6g}"), Plain(f"{errors[0]:.6g}"))


def expect_layer(layers_by_name, entry, report):
    name = entry.get("name")
    layer = layers_by_name.get(name)
    path = f"layers[{name}]"
    if layer is None:
        report.fail(path, Plain("a layer with this name"), Plain("none"))
        return
    kind = layer.WhichOneof("layer")
    for key, expected in entry.items():
        if key == "name":
            continue
        if key == "type":
            if expected != kind:
                report.fail(f"{path}.type", expected, kind)
        elif key in ("inputs", "outputs"):
            got = list(layer.input if key == "inputs" else layer.output)
            if got != expected:
                report.fail(f"{path}.{key}", expected, got)
        elif key == "params":
            compare_message(getattr(layer, kind), expected, f"{path}.{kind}", report)
        elif key == "weightCounts":
            expect_weight_counts(getattr(layer, kind), expected, f"{path}.{kind}", report)
        else:
            report.error(f"{path}.{key}", "unknown key in expect.json layer entry")


def expect_features(features, expected, path, report):
    if len(features) != len(expected):
        report.fail(f"{path}.names", [e.get("name") for e in expected], [f.name for f in features])
        return
    for index, (feature, entry) in enumerate(zip(features, expected)):
        summary = feature_summary(feature)
        for key, want in entry.items():
            where = f"{path}[{index}].{key}" if key == "name" else f"{path}[{feature.name}].{key}"
            if key not in summary:
                report.fail(where, want, Plain(f"nothing (a {summary['type']} feature)"))
            elif not values_equal(want, summary[key]):
                report.fail(where, want, summary[key])


def expect_preprocessing(network, expected, report):
    entries = network.preprocessing
    if len(entries) != len(expected):
        report.fail("preprocessing.length", len(expected), len(entries))
        return
    for index, (entry, want) in enumerate(zip(entries, expected)):
        path = f"preprocessing[{index}]"
        for key, value in want.items():
            if key == "meanImageCount":
                got = len(entry.meanImage.meanImage) if entry.HasField("meanImage") else 0
                if got != value:
                    report.fail(f"{path}.meanImageCount", value, got)
            else:
                compare_path(entry, key, value, path, report)


def expect_spec(spec, expected, report):
    """Compares each key stated in an expect.json with the decoded spec."""
    kind = spec.WhichOneof("Type")
    network = network_of(spec) if kind in NEURAL_NETWORK_KINDS else None
    description = spec.description
    for key, want in expected.items():
        if key == "specificationVersion":
            if want != spec.specificationVersion:
                report.fail(key, want, spec.specificationVersion)
        elif key == "kind":
            if want != kind:
                report.fail(key, want, kind)
        elif key in ("inputs", "outputs"):
            features = description.input if key == "inputs" else description.output
            expect_features(features, want, key, report)
        elif key in ("predictedFeatureName", "predictedProbabilitiesName"):
            if want != getattr(description, key):
                report.fail(key, want, getattr(description, key))
        elif key == "metadata":
            compare_message(description.metadata, want, "metadata", report)
        elif key == "pipeline":
            got = {"names": list(spec.pipeline.names), "kinds": [m.WhichOneof("Type") for m in spec.pipeline.models]}
            for field, value in want.items():
                if value != got.get(field):
                    report.fail(f"pipeline.{field}", value, got.get(field))
        elif key == "nonMaximumSuppression":
            models = [m for m in spec.pipeline.models if m.WhichOneof("Type") == "nonMaximumSuppression"]
            if not models:
                report.error(key, "the model holds no non-maximum suppression")
            else:
                compare_message(models[0].nonMaximumSuppression, want, key, report)
        elif network is None:
            report.error(key, f"cannot check on a {kind} model")
        elif key == "classLabels":
            labels = class_labels(network)[1]
            if labels != want:
                report.fail(key, want, labels)
        elif key == "preprocessing":
            expect_preprocessing(network, want, report)
        elif key == "layers":
            by_name = {layer.name: layer for layer in network.layers}
            for entry in want:
                expect_layer(by_name, entry, report)
        elif key == "weightsLike":
            expect_weights_like(network, want, report)
        elif key == "layerCount":
            if want != len(network.layers):
                report.fail(key, want, len(network.layers))
        elif key in ("arrayInputShapeMapping", "imageInputShapeMapping"):
            compare_scalar(getattr(network, key), network.DESCRIPTOR.fields_by_name[key], want, key, report)
        else:
            report.error(key, "unknown key in expect.json")


# ---------------------------------------------------------------------------
# Driver

def expectation_path(model_path):
    return model_path.with_name(model_path.name[: -len(".mlmodel")] + ".expect.json")


def check_file(model_path):
    """Returns the Report of one .mlmodel file (and its expect.json, if any)."""
    report = Report(model_path)
    try:
        spec = Model_pb2.Model.FromString(model_path.read_bytes())
    except Exception as exc:  # DecodeError, or any parse failure
        report.error("decode", f"not a valid Core ML model ({exc})")
        return report
    check_structure(spec, report)
    expect_file = expectation_path(model_path)
    if expect_file.exists():
        try:
            expected = json.loads(expect_file.read_text())
        except ValueError as exc:
            report.error(expect_file.name, f"invalid JSON ({exc})")
            return report
        expect_spec(spec, expected, report)
    return report


def orphan_expectations(root, models):
    """expect.json files whose model is missing (the writer made no file)."""
    wanted = {expectation_path(m) for m in models}
    return sorted(p for p in root.rglob("*.expect.json") if p not in wanted)


def main(argv):
    if len(argv) != 2:
        print("usage: check_mlmodels.py DIR", file=sys.stderr)
        return 2
    root = Path(argv[1])
    if not root.is_dir():
        print(f"check_mlmodels: {root} is not a directory", file=sys.stderr)
        return 1
    models = sorted(p for p in root.rglob("*.mlmodel") if p.is_file())
    passed = failed = 0
    for model in models:
        report = check_file(model)
        for line in report.lines:
            print(line)
        passed, failed = (passed + 1, failed) if report.ok else (passed, failed + 1)
    for orphan in orphan_expectations(root, models):
        print(f"{orphan}: model file missing ({orphan.name[: -len('.expect.json')]}.mlmodel)")
        failed += 1
    if not models:
        print(f"check_mlmodels: no .mlmodel files under {root}")
    print(f"check_mlmodels: {passed} passed, {failed} failed")
    return 1 if failed or not models else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
