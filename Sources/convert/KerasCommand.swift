import CLI
import CoreMLBackend
import Conversion
import ModelFiles
import KerasFrontend

/// `convert keras`: a Keras .h5 model -> .mlmodel.
enum KerasCommand: Command {
    static let configuration = CommandConfiguration(
        name: "keras", abstract: "Convert a Keras model (.h5 with its architecture) to Core ML.",
        discussion: """
            Reads the model_config JSON and the model_weights of Keras 2.x files and of the legacy HDF5 format \
            Keras 3 still writes. Inputs keep their Keras names; one saved with unknown sizes, (None, None, 3), takes \
            them from --input name=1,H,W,C. Lambda layers hold Python code: they are refused, never run or decoded.
            """)
    static let options = Options {
        Positional("model", valueName: "model.h5", help: "The Keras model.")
        ConversionFlags.outputOptions()
        ConversionFlags.inputShapeOptions
        ConversionFlags.imageOptions
        ConversionFlags.labelAndMetadataOptions
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        let options = try ConversionFlags.options(from: arguments)
        let inputs = Dictionary(try ConversionFlags.inputShapes(arguments).map { ($0.name, $0.shape) }) { first, _ in first }
        let source = try arguments.string("model")
        try Frontend.keras.require(source)
        try convert(to: output, inputs: [source] + ConversionFlags.inputFiles(arguments),
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try KerasConverter.convert(model: source, options: options, inputShapes: inputs), [])
        }
    }
}
