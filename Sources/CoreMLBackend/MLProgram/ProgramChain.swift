import CoreMLSchema
import ModelFormat
import Protobuf

/// A pipeline of ML programs, each reading the pipeline's inputs or the
/// outputs of programs before it (as coremltools' `ct.utils.make_pipeline`
/// writes one, each program's weights in its own `N-weight.bin`): read as
/// one model whose nodes are the programs' in turn. A value a later
/// program names again (coremltools names values `var_12` in every
/// program) takes the program's index as a prefix (`1/var_12`); the
/// features joining the programs keep their names. The first program's
/// inputs (image preprocessing included) that the pipeline takes are the
/// model's, the last program's classifier its.
extension SpecReader {
    func programChain(_ spec: UnsafeMutablePointer<MLModel>, blobs: BlobReader) throws -> CoreMLFile {
        guard let description = spec.pointee.description else { throw fail("the pipeline has no description (inputs and outputs)", at: spec) }
        let pipeline = spec.pointee.pipeline!
        let stages = Array(CArrays.buffer(pipeline.pointee.models, pipeline.pointee.n_models))
        guard stages.count >= 2, stages.allSatisfy({ $0?.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_ML_PROGRAM }) else {
            throw fail("the pipeline is neither a detector (an ML program, then non-maximum suppression) nor ML programs alone: "
                       + "other pipelines are not supported", at: pipeline)
        }
        let pipelineInputs = CArrays.buffer(description.pointee.input, description.pointee.n_input).map { CArrays.string($0?.pointee.name) }
        let pipelineOutputs = CArrays.buffer(description.pointee.output, description.pointee.n_output).map { CArrays.string($0?.pointee.name) }
        var model = Model(inputs: [], outputs: [], nodes: [])
        var available = Set<String>(), used = Set<String>()
        var counts: [String: Int] = [:], opsets: [String] = []
        for (index, stage) in stages.enumerated() {
            guard let stage, let program = stage.pointee.mlprogram else { throw fail("the pipeline's program \(index) holds no program", at: pipeline) }
            var (part, partFacts) = try self.program(program, description: stage.pointee.description, blobs: blobs)
            let features = Set(part.inputs.map(\.name) + part.outputs.map(\.name))
            for input in part.inputs where !available.contains(input.name) {
                guard pipelineInputs.contains(input.name) else {
                    throw fail("the pipeline's program \(index) reads '\(input.name)', which neither the pipeline's inputs nor a program before it give",
                               at: stage)
                }
                model.inputs.append(input)
                available.insert(input.name)
            }
            // A value named as an earlier program's or a model input (not a feature joining them), renamed.
            let clashing = Set(part.nodes.flatMap { [$0.name] + $0.outputs }).subtracting(features).intersection(used.union(available))
            for node in part.nodes.indices {
                func renamed(_ name: String) -> String { clashing.contains(name) ? "\(index)/\(name)" : name }
                part.nodes[node].name = renamed(part.nodes[node].name)
                part.nodes[node].inputs = part.nodes[node].inputs.map(renamed)
                part.nodes[node].outputs = part.nodes[node].outputs.map(renamed)
            }
            model.nodes += part.nodes
            used.formUnion(part.nodes.flatMap { [$0.name] + $0.outputs })
            available.formUnion(part.outputs.map(\.name))
            model.outputs.removeAll { output in part.outputs.contains { $0.name == output.name } }
            model.outputs += part.outputs
            model.computesInFloat16 = model.computesInFloat16 || part.computesInFloat16
            if index == stages.count - 1 { model.classifier = part.classifier }
            for (type, count) in partFacts.operationCounts { counts[type, default: 0] += count }
            if !opsets.contains(partFacts.opset) { opsets.append(partFacts.opset) }
        }
        model.outputs = try pipelineOutputs.filter { !(model.classifier.map { [$0.predictedFeatureName, $0.probabilitiesName] } ?? []).contains($0) }
            .map { name in
                guard let output = model.outputs.first(where: { $0.name == name }) else {
                    throw fail("the pipeline's output '\(name)' is no program's output", at: description)
                }
                return output
            }
        model.metadata = metadata(description.pointee.metadata)
        let facts = ProgramFacts(opset: opsets.joined(separator: ", "), counts: counts, computesInFloat16: model.computesInFloat16,
                                 weightFiles: blobs.files.map { ($0.name, $0.file.bytes.count) }, programCount: stages.count)
        return CoreMLFile(specificationVersion: Int(spec.pointee.specificationversion), model: model,
                          featureTypes: featureTypes(description), program: facts)
    }
}
