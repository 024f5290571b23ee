import Conversion
import ModelFormat

extension TFLiteMetadata {
    /// What the metadata tells a conversion, for each thing the user did
    /// not give (options override):
    /// - the first output's labels file: the class labels (a classifier);
    /// - the first input's normalization, `(value - mean) / std` on 0-255
    ///   pixels: an image input whose scale and biases give the same
    ///   (`ConversionOptions.normalization`, `mean / 255` and `std / 255`,
    ///   with a scale layer when the stds differ), when no preprocessing
    ///   option was given; an input the metadata calls an image without
    ///   normalization becomes an image of raw pixels;
    /// - name, description, version, author, license and the tensors'
    ///   descriptions: the Core ML model's; the rest of `outline` (what the
    ///   metadata says of each tensor, its files) its user-defined metadata.
    /// - Throws: `TFLiteError` for a normalization that cannot be one
    ///   (counts, a std not positive), `LabelFileError` for the labels file.
    func apply(to options: inout ConversionOptions, model: inout Model, path: String) throws {
        if options.classLabels == nil, options.detectorOutput == nil, options.yoloAnchors == nil,
           let (name, data) = try labels(output: 0, path: path) {
            let source = "\(path): associated file \(name)"
            options.classLabels = .strings(try LabelFile.parse(data[...], path: source))
            options.classLabelsSource = source
        }
        if let input = inputs.first, let feature = model.inputs.first, options.normalization == nil, options.givenPreprocessing.isEmpty,
           options.imageInputNames.isEmpty || options.imageInputNames == [feature.name], !input.mean.isEmpty || input.colorSpace != nil {
            options.imageInputNames = [feature.name]
            if !input.mean.isEmpty || !input.std.isEmpty {
                let what = "\(path): the metadata's normalization of input '\(input.name)'"
                guard !input.mean.isEmpty, !input.std.isEmpty else { throw TFLiteError("\(what) has \(input.mean.isEmpty ? "no mean" : "no std")") }
                if let bad = input.std.first(where: { !Normalization.isUsableStd($0 / 255) }) { throw TFLiteError("\(what) has the std \(bad)") }
                if let bad = input.mean.first(where: { !$0.isFinite }) { throw TFLiteError("\(what) has the mean \(bad)") }
                options.normalization = Normalization(mean: input.mean.map { $0 / 255 }, std: input.std.map { $0 / 255 })
            }
        }
        var given = options.metadata
        if given.shortDescription.isEmpty { given.shortDescription = [name, description].filter { !$0.isEmpty }.joined(separator: ": ") }
        if given.author.isEmpty { given.author = author }
        if given.license.isEmpty { given.license = license }
        if given.version.isEmpty { given.version = version }
        // What the metadata said of the tensors and its files, as inspect's outline lists it: where labels and preprocessing came from.
        given.userDefined += outline.filter { !["name", "description", "version", "author", "license"].map { "tflite.metadata.\($0)" }.contains($0.key) }
        options.metadata = given
        for (index, info) in zip(model.inputs.indices, inputs) where model.inputs[index].description.isEmpty {
            model.inputs[index].description = info.description
        }
        for (index, info) in zip(model.outputs.indices, outputs) where model.outputs[index].description.isEmpty {
            model.outputs[index].description = info.description
        }
    }

    /// The metadata as inspect lists it: key, value.
    var outline: [(key: String, value: String)] {
        var lines: [(key: String, value: String)] = []
        for (key, value) in [("name", name), ("description", description), ("version", version), ("author", author), ("license", license)]
        where !value.isEmpty {
            lines.append(("tflite.metadata.\(key)", value))
        }
        for (kind, tensors) in [("input", inputs), ("output", outputs)] {
            for (index, tensor) in tensors.enumerated() {
                let key = "tflite.metadata.\(kind) \(index)"
                var parts = [tensor.name.isEmpty ? "(unnamed)" : "'\(tensor.name)'"]
                if let space = tensor.colorSpace { parts.append("image, \(["color space unknown", "RGB", "grayscale"][safe: Int(space)] ?? "color space \(space)")") }
                if !tensor.mean.isEmpty || !tensor.std.isEmpty {
                    parts.append("normalized (value - mean) / std, mean \(Self.list(tensor.mean)), std \(Self.list(tensor.std))")
                }
                if let labels = tensor.labelsFile { parts.append("labels \(labels)") }
                lines.append((key, parts.joined(separator: "; ")))
            }
        }
        for entry in archive.entries {
            lines.append(("tflite.metadata.file", "\(entry.name) (\(entry.data.count) bytes\(entry.deflated.map { ", deflated to \($0)" } ?? ""))"))
        }
        return lines
    }

    private static func list(_ values: [Float]) -> String {
        values.map { $0 == $0.rounded() && abs($0) < 1e7 ? String(Int($0)) : String($0) }.joined(separator: ",")
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
