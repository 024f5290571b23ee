import ModelFormat
import Naming

extension ConversionOptions {
    /// With `detectorRowsPerClass`, the detector's rows repeated once per
    /// class (`Detector.rowsPerClassNodes`): N boxes of C classes become
    /// N x C rows into the suppression, its confidences N x C x C values.
    /// - Throws: `ConversionOptionError` when the model is no detector;
    ///   `ModelError` when the rows would be too many values.
    func applyRowsPerClass(to model: inout Model) throws {
        guard detectorRowsPerClass else { return }
        guard var detector = model.detector else {
            throw ConversionOptionError("\(option: .rowsPerClass) applies to a detector, and the model is not one")
        }
        guard !detector.rowsPerClass else { return }
        var shapes = try ShapeInference.shapes(of: model)
        guard let dimensions = shapes[detector.confidenceTensor]?.dimensions, dimensions.count == 3 else {
            throw ModelError("\(option: .rowsPerClass): the detector's confidences '\(detector.confidenceTensor)' are not [1, boxes, classes]")
        }
        let (boxes, classes) = (dimensions[1], dimensions[2])
        // On [C, H, W] maps the spreading is a convolution of C x C x C weights, bounded too.
        guard let values = [boxes, classes, classes].checkedProduct, values <= TensorShape.maximumCount,
              model.hasTensorInputs || [classes, classes, classes].checkedProduct.map({ $0 <= TensorShape.maximumCount }) == true else {
            throw ModelError("\(option: .rowsPerClass): \(boxes) boxes of \(classes) classes make \(boxes) x \(classes) rows of \(classes) "
                             + "confidences, more than a tensor holds (\(TensorShape.maximumCount) values)")
        }
        var names = FreshNames(model)
        let repeated = Detector.rowsPerClassNodes(confidence: detector.confidenceTensor, coordinates: detector.coordinatesTensor,
                                                  boxes: boxes, classes: classes, tensors: model.hasTensorInputs, names: &names)
        _ = try ShapeInference.append(repeated.nodes, to: &model.nodes, shapes: &shapes)
        (detector.confidenceTensor, detector.coordinatesTensor, detector.rowsPerClass) = (repeated.confidence, repeated.coordinates, true)
        model.outputs = [Output(name: detector.confidenceTensor), Output(name: detector.coordinatesTensor)]
        model.detector = detector
    }
}
