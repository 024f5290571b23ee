import Foundation
import ModelFormat
import Naming

/// A segmentation model made usable in an app: its per-pixel class scores
/// become one class index per pixel, and its labels reach Xcode's preview.
extension ConversionOptions {
    /// The output `applyClassMap` adds.
    public static let classMapName = "classMap"
    /// The user-defined metadata keys Xcode's model preview reads
    /// (coremltools' "Xcode Model Preview Types": a segmentation model is
    /// an `imageSegmenter`, its parameters JSON `{"labels": [...]}`).
    public static let previewTypeKey = "com.apple.coreml.model.preview.type"
    public static let previewParametersKey = "com.apple.coreml.model.preview.params"

    /// With `classMap`, the model's one output, per-pixel class scores
    /// ([C, H, W], or a [1, C, H, W] tensor), gets an argmax over its C
    /// channels as the model's output `classMap`: [1, H, W] (or
    /// [1, 1, H, W]), each value a pixel's class index, as a float. Class
    /// labels, when given, name the C classes in Xcode's preview metadata
    /// (`imageSegmenter`) instead of making a classifier.
    /// - Throws: `ModelError` when the model has not one such output, or
    ///   already names a tensor `classMap`; `LabelFileError` naming the
    ///   labels file when the labels do not count C.
    public mutating func applyClassMap(to model: inout Model) throws {
        guard classMap else { return }
        guard yoloAnchors == nil, model.detector == nil, !addSoftmax else {
            throw ModelError("\(option: .classMap) makes a segmentation model's output a class map; it does not go with a detector or \(option: .addSoftmax)")
        }
        guard model.outputs.count == 1 else {
            throw ModelError("\(option: .classMap) takes the one output of per-pixel class scores, and the model has \(model.outputs.count): "
                             + model.outputs.map(\.name).joined(separator: ", "))
        }
        let scores = model.outputs[0].name
        let shape = try ShapeInference.shapes(of: model)[scores]
        let dimensions = shape?.dimensions ?? []
        let channelAxis = dimensions.count == 3 ? 0 : dimensions.count == 4 && dimensions[0] == 1 ? 1 : nil
        // A classifier's [C] scores are [C, 1, 1] here: one pixel is no segmentation.
        guard let channelAxis, dimensions[channelAxis] >= 2, dimensions[(channelAxis + 1)...].reduce(1, *) > 1 else {
            throw ModelError("\(option: .classMap) takes per-pixel class scores [C, H, W] with C at least 2 and more than one pixel; output '\(scores)' is "
                             + (shape?.description ?? "of unknown shape"))
        }
        let classes = dimensions[channelAxis]
        let taken = Set(model.inputs.map(\.name) + model.nodes.flatMap { [$0.name] + $0.outputs })
        guard !taken.contains(Self.classMapName) else {
            throw ModelError("\(option: .classMap) adds the output '\(Self.classMapName)', and the model names a tensor so already")
        }
        if let labels = classLabels {
            guard labels.count == classes else {
                throw LabelFileError(path: classLabelsSource, message: "\(labels.count) class labels, but output '\(scores)' scores \(classes) classes a pixel")
            }
            let parameters = try JSONSerialization.data(withJSONObject: ["labels": labels.descriptions], options: [.sortedKeys])
            metadata.userDefined += [(key: Self.previewTypeKey, value: "imageSegmenter"),
                                     (key: Self.previewParametersKey, value: String(decoding: parameters, as: UTF8.self))]
            classLabels = nil
        }
        model.nodes.append(Node(name: Self.classMapName, operation: .reduce(Reduce(mode: .argmax, axes: [-3])), inputs: [scores],
                                outputs: [Self.classMapName]))
        model.outputs = [Output(name: Self.classMapName, description: "Each pixel's class: the index of the largest of its \(classes) class scores")]
    }
}
