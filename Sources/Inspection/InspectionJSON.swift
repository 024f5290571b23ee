import Naming
import CoreMLBackend
import ModelFormat

/// The machine-readable form of everything `inspect` shows, for `--json`
/// (the schema is in README.md under "inspect --json").
public enum InspectionJSON {
    /// The document for one file; `weightStatistics` adds the `weights`
    /// array (min / max / mean / std / NaN / Inf per tensor), which reads the
    /// weight values.
    /// `{specificationVersion, systems: ["iOS 13", ...], raisedBy: [{type, version, layers}]}`.
    static func deployment(_ requirement: DeploymentRequirement) -> JSON {
        .object([
            "specificationVersion": .int(requirement.specificationVersion),
            "systems": .strings(requirement.systems),
            "raisedBy": .array(requirement.raisedBy.map { group in
                .object(["type": .string(group.type), "version": .int(group.version), "layers": .strings(group.layers)])
            }),
        ])
    }

    /// `{opset, programCount, computePrecision, operationCount, operationCounts: [{type, count}], weightFiles: [{name, bytes}]}`.
    static func program(_ facts: ProgramFacts) -> JSON {
        .object([
            "opset": .string(facts.opset),
            "programCount": .int(facts.programCount),
            "computePrecision": .string(facts.computesInFloat16 ? "float16" : "float32"),
            "operationCount": .int(facts.operationCount),
            "operationCounts": .array(facts.operationCounts.map { .object(["type": .string($0.type), "count": .int($0.count)]) }),
            "weightFiles": .array(facts.weightFiles.map { .object(["name": .string($0.name), "bytes": .int($0.bytes)]) }),
        ])
    }

    /// An option an obstacle mentions is named by `naming` (a program: its flag).
    public static func document(_ inspected: InspectedModel, weightStatistics: Bool, naming: (OptionName) -> String = \.libraryName) -> JSON {
        var members: [JSON.Member] = [
            .init("file", .string(inspected.path)),
            .init("format", .object(["id": .string(inspected.format.id), "name": .string(inspected.format.name),
                                     "version": inspected.format.version.map(JSON.int) ?? .null])),
            .init("deployment", inspected.deployment.map(deployment) ?? .null),
            .init("name", inspected.name.isEmpty ? .null : .string(inspected.name)),
        ]
        let tensors = inspected.weightTensors
        if let outline = inspected.outline {
            members += self.outline(outline, naming: naming)
            return .object(members)
        }
        switch inspected.content {
        case .network(let model):
            let statistics = ModelStatistics(model)
            members.append(.init("kind", .string(model.detector != nil ? "detector" : model.classifier == nil ? "neuralNetwork" : "neuralNetworkClassifier")))
            members.append(.init("metadata", metadata(model.metadata)))
            members.append(.init("inputs", .array(inspected.inputFeatures(statistics).enumerated().map { index, feature in
                var object = self.feature(feature).members
                object.append(.init("image", index < model.inputs.count ? model.inputs[index].image.map(image) ?? .null : .null))
                return .object(object)
            })))
            members.append(.init("outputs", .array(inspected.outputFeatures(statistics).map { self.feature($0) })))
            members.append(.init("classLabels", model.classifier.map(labels) ?? .null))
            members.append(.init("detector", model.detector.map { detector(statistics, $0) } ?? .null))
            members.append(.init("layerCount", .int(model.nodes.count)))
            members.append(.init("layerCounts", .array(statistics.layerCounts.map {
                .object(["type": .string($0.kind), "count": .int($0.count)])
            })))
            members.append(.init("parameters", parameters(inspected)))
            members.append(.init("multiplyAccumulates", .int(statistics.multiplyAccumulates)))
            members.append(.init("program", inspected.program.map(program) ?? .null))
            members.append(.init("notes", notes(inspected)))
            let byLayer = Dictionary(grouping: tensors.filter(\.isParameter), by: \.layer)
            members.append(.init("layers", .array(model.nodes.enumerated().map { index, node in
                .object([
                    "index": .int(index),
                    "name": .string(node.name),
                    "type": .string(node.operation.kindName),
                    "inputs": .strings(node.inputs),
                    "outputs": .strings(node.outputs),
                    "outputShapes": .array(node.outputs.map { statistics.shapes[$0].map { .ints($0.dimensions) } ?? .null }),
                    "parameters": .int(node.operation.parameterCount),
                    "attributes": .object(node.attributes.map { JSON.Member($0.key, JSON($0.value)) }),
                    "weights": .array((byLayer[node.name] ?? []).map(tensorShape)),
                ])
            })))
        case .weightsOnly(let file):
            members.append(.init("kind", .string("weights")))
            members.append(.init("layerCount", .int(file.layers.count)))
            members.append(.init("parameters", parameters(inspected)))
            members.append(.init("notes", notes(inspected)))
            let byLayer = Dictionary(grouping: tensors, by: \.layer)
            members.append(.init("layers", .array(file.layers.enumerated().map { index, layer in
                .object([
                    "index": .int(index),
                    "name": .string(layer.name),
                    "type": layer.type.isEmpty ? .null : .string(layer.type),
                    "inputs": .strings(layer.inputs),
                    "outputs": .strings(layer.outputs),
                    "parameters": .int(layer.blobs.reduce(0) { $0 + $1.values.count }),
                    "weights": .array((byLayer[layer.name] ?? []).map(tensorShape)),
                ])
            })))
        }
        if weightStatistics {
            members.append(.init("weights", .array(tensors.map { tensor in
                var object = tensorShape(tensor).members
                object.insert(.init("layer", .string(tensor.layer)), at: 0)
                let statistics = WeightStatistics(tensor.values)
                object += [
                    .init("min", statistics?.minimum.map(JSON.float) ?? .null),
                    .init("max", statistics?.maximum.map(JSON.float) ?? .null),
                    .init("mean", statistics?.mean.map(JSON.double) ?? .null),
                    .init("std", statistics?.standardDeviation.map(JSON.double) ?? .null),
                    .init("nan", statistics.map { .int($0.nanCount) } ?? .null),
                    .init("inf", statistics.map { .int($0.infinityCount) } ?? .null),
                ]
                return .object(object)
            })))
        }
        return .object(members)
    }

    /// A model that parses but does not convert: `kind` "unconverted",
    /// `convertible` false, what the file states (a size is a number, its
    /// symbolic name, or null), and every obstacle.
    static func outline(_ outline: SourceOutline, naming: (OptionName) -> String) -> [JSON.Member] {
        func tensor(_ tensor: SourceOutline.Tensor) -> JSON {
            .object(["name": .string(tensor.name), "type": tensor.type.isEmpty ? .null : .string(tensor.type),
                     "shape": tensor.shape.map { dims in .array(dims.map { Int($0).map(JSON.int) ?? ($0 == "?" ? .null : .string($0)) }) } ?? .null])
        }
        func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
        return [
            .init("kind", .string("unconverted")),
            .init("convertible", .bool(false)),
            .init("obstacles", .array(outline.obstacles.map { obstacle in
                .object(["kind": .string(obstacle.kind.rawValue), "message": .string(obstacle.message.namingOptions(naming)), "op": optional(obstacle.op),
                         "count": obstacle.count.map(JSON.int) ?? .null, "node": optional(obstacle.node),
                         "input": optional(obstacle.input), "option": optional(obstacle.option?.namingOptions(naming))])
            })),
            .init("metadata", .object(outline.metadata.map { JSON.Member($0.key, .string($0.value)) })),
            .init("inputs", .array(outline.inputs.map(tensor))),
            .init("outputs", .array(outline.outputs.map(tensor))),
            .init("layerCount", .int(outline.nodes.count)),
            .init("layerCounts", .array(outline.opCounts.map { .object(["type": .string($0.op), "count": .int($0.count)]) })),
            .init("weightTensorCount", outline.weightTensors.map(JSON.int) ?? .null),
            .init("parameters", outline.parameters.map(JSON.int) ?? .null),
            .init("layers", .array(outline.nodes.enumerated().map { index, node in
                .object(["index": .int(index), "name": .string(node.name), "type": .string(node.op),
                         "inputs": .strings(node.inputs), "outputs": .strings(node.outputs)])
            })),
        ]
    }

    static func feature(_ feature: FeatureSummary) -> JSON {
        .object(["name": .string(feature.name), "type": .string(feature.type),
                 "shape": feature.shape.isEmpty ? .null : .ints(feature.shape), "description": .string(feature.description)])
    }

    static func image(_ image: ImageInput) -> JSON {
        .object([
            "width": .int(image.width), "height": .int(image.height), "colorSpace": .string(image.colorSpace.rawValue),
            "preprocessing": .object(["scale": .float(image.scale), "redBias": .float(image.redBias),
                                      "greenBias": .float(image.greenBias), "blueBias": .float(image.blueBias),
                                      "grayBias": .float(image.grayBias),
                                      "meanImageValues": image.meanImage.map { .int($0.count) } ?? .null]),
        ])
    }

    static func metadata(_ meta: Metadata) -> JSON {
        .object(["shortDescription": .string(meta.shortDescription), "author": .string(meta.author),
                 "license": .string(meta.license), "version": .string(meta.version),
                 "userDefined": .object(meta.userDefined.map { JSON.Member($0.key, .string($0.value)) })])
    }

    /// The detector's suppression, labels and candidate count.
    static func detector(_ statistics: ModelStatistics, _ detector: Detector) -> JSON {
        let rows = statistics.shapes[detector.coordinatesTensor]?.dimensions.dropLast().last
        return .object([
            "candidateBoxes": rows.map(JSON.int) ?? .null,
            "labels": .strings(detector.labels.descriptions),
            "iouThreshold": .double(detector.iouThreshold),
            "confidenceThreshold": .double(detector.confidenceThreshold),
            "perClass": .bool(detector.perClass),
            "rowsPerClass": .bool(detector.rowsPerClass),
            "maximumBoxes": detector.maximumBoxes.map(JSON.int) ?? .null,
            "confidenceTensor": .string(detector.confidenceTensor),
            "coordinatesTensor": .string(detector.coordinatesTensor),
        ])
    }

    static func labels(_ classifier: Classifier) -> JSON {
        let type = if case .strings = classifier.labels { "string" } else { "int64" }
        let values: [JSON] = switch classifier.labels {
        case .strings(let labels): labels.map(JSON.string)
        case .integers(let labels): labels.map { .number(String($0)) }
        }
        return .object(["count": .int(classifier.labels.count), "type": .string(type), "labels": .array(values),
                        "predictedFeatureName": .string(classifier.predictedFeatureName),
                        "probabilitiesName": .string(classifier.probabilitiesName)])
    }

    static func parameters(_ inspected: InspectedModel) -> JSON {
        let parts = inspected.parametersByPrecision
        return .object([
            "count": .int(parts.reduce(0) { $0 + $1.count }),
            "bytes": .int(parts.reduce(0) { $0 + $1.bytes }),
            "byPrecision": .array(parts.map { .object(["precision": .string($0.precision.name), "count": .int($0.count),
                                                       "bytes": .int($0.bytes)]) }),
        ])
    }

    static func notes(_ inspected: InspectedModel) -> JSON {
        .array(inspected.notes.map { .object(["label": .string($0.label), "items": .strings($0.items)]) })
    }

    static func tensorShape(_ tensor: WeightTensor) -> JSON {
        .object(["name": .string(tensor.name), "shape": .ints(tensor.shape), "count": .int(tensor.count),
                 "precision": .string(tensor.precision.name)])
    }
}

extension JSON {
    /// An object's members (empty for other values).
    var members: [Member] {
        if case .object(let members) = self { return members }
        return []
    }
}
