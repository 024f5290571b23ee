import CoreMLSchema
import ModelFormat
import Protobuf

/// A detector written as an ML Program package: the root model is the
/// Pipeline `detectorPipeline` writes for a NeuralNetwork file (the
/// network, then non-maximum suppression with the labels and thresholds,
/// `iouThreshold` and `confidenceThreshold` optional inputs), its first
/// model an mlProgram instead of a neural network:
///
///     Pipeline (specification 6)
///       network                mlProgram (specification 6): image -> raw rows [N, C] and [N, 4], float32
///       nonMaximumSuppression  (specification 6): the rows -> confidence, coordinates
///
/// As coremltools writes a pipeline holding a program (`ct.models.pipeline`
/// saved with the program's `weights_dir`, as Ultralytics' exporter does):
/// the program's weights stay in the package's `weights/weight.bin`, each
/// blob referenced as `@model_path/weights/weight.bin`; every model of it
/// at the pipeline's specification version, the highest of its models'
/// (`ct.utils.make_pipeline`). The box decoding is in the program, as
/// operations, where the NeuralNetwork file has it as layers.
extension SpecBuilder {
    func programDetector(_ model: Model, _ detector: Detector, shapes: [String: TensorShape],
                         options: ProgramOptions) throws -> (UnsafeMutablePointer<MLModel>, BlobFile) {
        let (program, blobs) = try mlProgram(model, shapes: shapes, options: options)
        // The pipeline states the rows' count from the outputs' [1, N, C] shapes.
        var described = model
        for index in described.outputs.indices { described.outputs[index].shape = shapes[described.outputs[index].name]?.dimensions ?? [] }
        let pipeline = detectorPipeline(detector, network: program, model: described, float32Rows: true)
        setVersion(options.specificationVersion, of: pipeline)
        return (pipeline, blobs)
    }
}

extension SpecReader {
    /// The detector pipeline of a package (`programDetector`): its program
    /// raised as `program` raises a package's root program, the rows'
    /// `[N, C]` outputs the graph's `[1, N, C]` tensors again.
    /// - Returns: the file, with the program's facts.
    func programDetector(_ spec: UnsafeMutablePointer<MLModel>, blobs: BlobReader) throws -> CoreMLFile {
        var facts: ProgramFacts?
        var file = try detector(spec, networkType: CORE_ML__SPECIFICATION__MODEL__TYPE_ML_PROGRAM, kind: "an ML program") { network in
            guard let program = network.pointee.mlprogram else { throw fail("the pipeline's ML program holds no program", at: network) }
            var (model, programFacts) = try self.program(program, description: network.pointee.description, blobs: blobs)
            facts = programFacts
            for output in model.outputs {
                // A tensor program's rows are a reshape of the [1, N, C] tensor named as the output: the same values.
                guard let index = model.nodes.lastIndex(where: { $0.outputs == [output.name] }), model.nodes[index].inputs.count == 1,
                      let reshape = model.nodes[index].operation.definition as? Reshape, reshape.targetShape.count == 2 else { continue }
                let source = model.nodes.remove(at: index).inputs[0]
                model.nodes = model.nodes.map { node in
                    var node = node
                    node.inputs = node.inputs.map { $0 == source ? output.name : $0 }
                    node.outputs = node.outputs.map { $0 == source ? output.name : $0 }
                    return node
                }
            }
            return model
        }
        file.program = facts
        return file
    }
}
