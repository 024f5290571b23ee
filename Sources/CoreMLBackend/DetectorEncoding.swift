import ModelFormat
import CoreMLSchema

/// A detector as Core ML and Vision take it (coremltools' SSD example,
/// Vision's object-detection models): a Pipeline of
///
/// 1. the neural network, whose two outputs are the candidate rows,
///    N x C confidences and N x 4 boxes, typed as double arrays (the
///    non-maximum suppression model takes doubles only before
///    specification 5), or an ML program (`programDetector`), whose rows
///    are float32 arrays as its function gives them (the suppression's
///    inputs and outputs share one element type: Core ML's validator);
/// 2. a NonMaximumSuppression model (PickTop) reading them, with the class
///    labels and thresholds, whose outputs `confidence` and `coordinates`
///    have a flexible row count (0 or more rows of C and of 4; at most
///    `maximumBoxes`, the suppression's documented cap on the boxes kept).
///    With `rowsPerClass`, its description's metadata says so
///    (`rowsPerClassKey`), for the reader and the people reading the file.
///
/// The pipeline takes the network's inputs and two optional doubles,
/// `iouThreshold` and `confidenceThreshold`, that override the stored
/// thresholds at prediction time, as Vision expects (the suppression names
/// them; its own description lists only the two arrays, as coremltools'
/// examples write it: a model other than a network or pipeline may not
/// take optional inputs).
extension SpecBuilder {
    func detectorPipeline(_ detector: Detector, network: UnsafeMutablePointer<MLModel>, model: Model,
                          float32Rows: Bool = false) -> UnsafeMutablePointer<MLModel> {
        let shapes = Dictionary(uniqueKeysWithValues: model.outputs.map { ($0.name, $0.shape) })
        let boxes = shapes[detector.confidenceTensor]?.dropLast().last ?? 0
        let classes = detector.labels.count
        func rowsType(rows: Int?, most: Int? = nil, columns: Int) -> UnsafeMutablePointer<MLFeatureType> {
            self.rowsType(rows: rows, most: most, columns: columns, float32: float32Rows)
        }
        let rawConfidence = feature(detector.confidenceTensor, "Class confidences of every candidate box", rowsType(rows: boxes, columns: classes))
        let rawCoordinates = feature(detector.coordinatesTensor, "Every candidate box: centre x, centre y, width, height (fractions of the image)",
                                     rowsType(rows: boxes, columns: 4))
        // The network's outputs as the suppression reads them; its metadata moves to the pipeline.
        let networkDescription = network.pointee.description!
        (networkDescription.pointee.n_output, networkDescription.pointee.output) = array([rawConfidence, rawCoordinates])
        networkDescription.pointee.metadata = nil

        let thresholds = [
            feature(Detector.iouThresholdFeature, "(optional) IoU threshold override (default: \(detector.iouThreshold))", optionalDouble()),
            feature(Detector.confidenceThresholdFeature, "(optional) Confidence threshold override (default: \(detector.confidenceThreshold))",
                    optionalDouble()),
        ]
        let kept = [
            feature(Detector.confidenceFeature, "Confidence of each class label for each box kept", rowsType(rows: nil, most: detector.maximumBoxes, columns: classes)),
            feature(Detector.coordinatesFeature, "Each box kept: centre x, centre y, width, height (fractions of the image)",
                    rowsType(rows: nil, most: detector.maximumBoxes, columns: 4)),
        ]

        let suppression: UnsafeMutablePointer<MLModel> = new(core_ml__specification__model__init)
        let suppressionDescription: UnsafeMutablePointer<MLModelDescription> = new(core_ml__specification__model_description__init)
        // The threshold inputs are named by the suppression but not described: its
        // inputs may not be optional (Core ML's validator), and Vision passes none.
        (suppressionDescription.pointee.n_input, suppressionDescription.pointee.input) = array([rawConfidence, rawCoordinates])
        (suppressionDescription.pointee.n_output, suppressionDescription.pointee.output) = array(kept)
        if detector.rowsPerClass {
            suppressionDescription.pointee.metadata = metadata(Metadata(
                shortDescription: "Each box's row comes once per class, holding that class's confidence alone: suppression per class, "
                    + "a box kept under every label it passes", userDefined: [(key: Self.rowsPerClassKey, value: "true")]))
        }
        suppression.pointee.description = suppressionDescription
        suppression.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_NON_MAXIMUM_SUPPRESSION
        suppression.pointee.nonmaximumsuppression = nonMaximumSuppression(detector)

        let pipeline: UnsafeMutablePointer<MLModel> = new(core_ml__specification__model__init)
        let description: UnsafeMutablePointer<MLModelDescription> = new(core_ml__specification__model_description__init)
        let networkInputs = Array(UnsafeBufferPointer(start: networkDescription.pointee.input, count: networkDescription.pointee.n_input))
        (description.pointee.n_input, description.pointee.input) = (networkInputs.count + 2, arena.copy(networkInputs + thresholds.map { Optional($0) }))
        (description.pointee.n_output, description.pointee.output) = array(kept)
        description.pointee.metadata = metadata(model.metadata)
        pipeline.pointee.description = description
        let models: UnsafeMutablePointer<MLPipeline> = new(core_ml__specification__pipeline__init)
        (models.pointee.n_models, models.pointee.models) = array([network, suppression])
        (models.pointee.n_names, models.pointee.names) = strings(["network", "nonMaximumSuppression"])
        pipeline.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_PIPELINE
        pipeline.pointee.pipeline = models
        return pipeline
    }

    /// The suppression's metadata key saying the rows come once per class.
    static let rowsPerClassKey = "rowsPerClass"

    /// Rows of `columns` doubles (or float32s): `rows` of them, or (nil)
    /// 0 to `most` (nil: any number) as a shape range.
    func rowsType(rows: Int?, most: Int? = nil, columns: Int, float32: Bool = false) -> UnsafeMutablePointer<MLFeatureType> {
        let type: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
        let arrayType: UnsafeMutablePointer<MLArrayType> = new(core_ml__specification__array_feature_type__init)
        arrayType.pointee.datatype = float32 ? CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__FLOAT32
            : CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__DOUBLE
        if let rows {
            (arrayType.pointee.n_shape, arrayType.pointee.shape) = int64s([rows, columns])
        } else {
            let range: UnsafeMutablePointer<MLShapeRange> = new(core_ml__specification__array_feature_type__shape_range__init)
            let anyCount: UnsafeMutablePointer<MLSizeRange> = new(core_ml__specification__size_range__init)
            anyCount.pointee.upperbound = most.map(Int64.init) ?? -1
            let fixed: UnsafeMutablePointer<MLSizeRange> = new(core_ml__specification__size_range__init)
            (fixed.pointee.lowerbound, fixed.pointee.upperbound) = (UInt64(columns), Int64(columns))
            (range.pointee.n_sizeranges, range.pointee.sizeranges) = array([anyCount, fixed])
            arrayType.pointee.shape_flexibility_case = CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__SHAPE_FLEXIBILITY_SHAPE_RANGE
            arrayType.pointee.shaperange = range
        }
        type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE
        type.pointee.multiarraytype = arrayType
        return type
    }

    func optionalDouble() -> UnsafeMutablePointer<MLFeatureType> {
        let type: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
        type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DOUBLE_TYPE
        type.pointee.doubletype = new(core_ml__specification__double_feature_type__init)
        type.pointee.isoptional = 1
        return type
    }

    func nonMaximumSuppression(_ detector: Detector) -> UnsafeMutablePointer<MLNonMaximumSuppression> {
        let message: UnsafeMutablePointer<MLNonMaximumSuppression> = new(core_ml__specification__non_maximum_suppression__init)
        let pickTop: UnsafeMutablePointer<MLPickTop> = new(core_ml__specification__non_maximum_suppression__pick_top__init)
        pickTop.pointee.perclass = detector.perClass ? 1 : 0
        message.pointee.suppression_method_case = CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__SUPPRESSION_METHOD_PICK_TOP
        message.pointee.picktop = pickTop
        classLabels(detector.labels, strings: {
            (message.pointee.class_labels_case, message.pointee.stringclasslabels) = (CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__CLASS_LABELS_STRING_CLASS_LABELS, $0)
        }, integers: {
            (message.pointee.class_labels_case, message.pointee.int64classlabels) = (CORE_ML__SPECIFICATION__NON_MAXIMUM_SUPPRESSION__CLASS_LABELS_INT64_CLASS_LABELS, $0)
        })
        message.pointee.iouthreshold = detector.iouThreshold
        message.pointee.confidencethreshold = detector.confidenceThreshold
        message.pointee.confidenceinputfeaturename = string(detector.confidenceTensor)
        message.pointee.coordinatesinputfeaturename = string(detector.coordinatesTensor)
        message.pointee.iouthresholdinputfeaturename = string(Detector.iouThresholdFeature)
        message.pointee.confidencethresholdinputfeaturename = string(Detector.confidenceThresholdFeature)
        message.pointee.confidenceoutputfeaturename = string(Detector.confidenceFeature)
        message.pointee.coordinatesoutputfeaturename = string(Detector.coordinatesFeature)
        return message
    }

    /// Sets the specification version of `spec` and of every model in it.
    func setVersion(_ version: Int32, of spec: UnsafeMutablePointer<MLModel>) {
        spec.pointee.specificationversion = version
        if spec.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_PIPELINE, let pipeline = spec.pointee.pipeline {
            for case let model? in UnsafeBufferPointer(start: pipeline.pointee.models, count: pipeline.pointee.n_models) {
                setVersion(version, of: model)
            }
        }
    }
}
