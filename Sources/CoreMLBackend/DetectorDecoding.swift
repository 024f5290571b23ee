import ModelFormat
import CoreMLSchema
import Protobuf

/// Reads a detector pipeline as `DetectorEncoding` writes it (and as
/// coremltools' examples and other tools build it): a neural network (in
/// an ML Program package, a program: `programDetector`) whose two outputs
/// feed a NonMaximumSuppression model (PickTop) whose outputs are
/// `confidence` and `coordinates`. Other pipelines are refused.
extension SpecReader {
    func detector(_ spec: UnsafeMutablePointer<MLModel>) throws -> CoreMLFile {
        try detector(spec, networkType: CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK, kind: "a neural network") { try network($0) }
    }

    /// The detector pipeline `spec` whose first model is of `networkType`
    /// (`kind` in messages), read by `readNetwork`.
    func detector(_ spec: UnsafeMutablePointer<MLModel>, networkType: CoreML__Specification__Model__TypeCase, kind: String,
                  readNetwork: (UnsafeMutablePointer<MLModel>) throws -> Model) throws -> CoreMLFile {
        guard let description = spec.pointee.description else {
            throw fail("the pipeline has no description (inputs and outputs)", at: spec)
        }
        let pipeline = spec.pointee.pipeline!
        let models = CArrays.buffer(pipeline.pointee.models, pipeline.pointee.n_models)
        guard models.count == 2, let first = models[0], let second = models[1], first.pointee.type_case == networkType,
              second.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_NON_MAXIMUM_SUPPRESSION else {
            throw fail("the pipeline is not a detector (\(kind), then non-maximum suppression): "
                       + "other pipelines are not supported", at: pipeline)
        }
        var model = try readNetwork(first)
        let nms = second.pointee.nonmaximumsuppression!
        guard nms.pointee.suppression_method_case == CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__SUPPRESSION_METHOD_PICK_TOP,
              let pickTop = nms.pointee.picktop else {
            throw fail("the non-maximum suppression has no method (PickTop)", at: nms)
        }
        let labels: ClassLabels
        switch nms.pointee.class_labels_case {
        case CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__CLASS_LABELS_STRING_CLASS_LABELS:
            labels = .strings(CArrays.strings(nms.pointee.stringclasslabels.pointee.vector, nms.pointee.stringclasslabels.pointee.n_vector))
        case CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__CLASS_LABELS_INT64_CLASS_LABELS:
            labels = .integers(CArrays.array(nms.pointee.int64classlabels.pointee.vector, nms.pointee.int64classlabels.pointee.n_vector))
        default:
            throw fail("the non-maximum suppression has no class labels", at: nms)
        }
        let names = [CArrays.string(nms.pointee.confidenceoutputfeaturename), CArrays.string(nms.pointee.coordinatesoutputfeaturename),
                     CArrays.string(nms.pointee.iouthresholdinputfeaturename), CArrays.string(nms.pointee.confidencethresholdinputfeaturename)]
        let expected = [Detector.confidenceFeature, Detector.coordinatesFeature, Detector.iouThresholdFeature, Detector.confidenceThresholdFeature]
        // Threshold inputs may be absent (no override at prediction time); written back, they are added.
        guard names[..<2] == expected[..<2], zip(names, expected).dropFirst(2).allSatisfy({ $0.0.isEmpty || $0.0 == $0.1 }) else {
            throw fail("the detector's features are named \(names), not \(expected) as Vision's models name them", at: nms)
        }
        let detector = Detector(labels: labels, confidenceTensor: CArrays.string(nms.pointee.confidenceinputfeaturename),
                                coordinatesTensor: CArrays.string(nms.pointee.coordinatesinputfeaturename),
                                iouThreshold: nms.pointee.iouthreshold, confidenceThreshold: nms.pointee.confidencethreshold,
                                perClass: pickTop.pointee.perclass != 0,
                                rowsPerClass: metadata(second.pointee.description?.pointee.metadata).userDefined
                                    .contains { $0.key == SpecBuilder.rowsPerClassKey && $0.value == "true" },
                                maximumBoxes: mostRows(second.pointee.description))
        // The network states its rows as [N, C]; the graph computes them as [1, N, C].
        for index in model.outputs.indices where model.outputs[index].shape.count == 2 {
            model.outputs[index].shape.insert(1, at: 0)
        }
        model.detector = detector
        model.metadata = metadata(description.pointee.metadata)
        var types = featureTypes(first.pointee.description!)
        types.merge(featureTypes(description)) { _, pipeline in pipeline }
        return CoreMLFile(specificationVersion: Int(spec.pointee.specificationversion), model: model, featureTypes: types)
    }

    /// The upper bound of the suppression's first output's row range, if
    /// it sets one (the most boxes it keeps).
    func mostRows(_ description: UnsafeMutablePointer<MLModelDescription>?) -> Int? {
        guard let description, description.pointee.n_output > 0, let feature = description.pointee.output[0],
              let type = feature.pointee.type, type.pointee.type_case == CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE,
              let array = type.pointee.multiarraytype else { return nil }
        if array.pointee.shape_flexibility_case == CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__SHAPE_FLEXIBILITY_SHAPE_RANGE,
           let range = array.pointee.shaperange, range.pointee.n_sizeranges == 2, let rows = range.pointee.sizeranges[0] {
            return rows.pointee.upperbound >= 0 ? Int(clamping: rows.pointee.upperbound) : nil
        }
        return nil
    }
}
