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
            them from --input-shape name=1,H,W,C. Lambda layers hold Python code: they are refused, never run or decoded.
            """,
        examples: [
            ("A model saved with unknown sizes, (None, None, 3), taking images",
             "coreml-convert keras model.h5 --input-shape image=1,12,10,3 --image-input image -o Model.mlmodel"),
            ("A classifier and its Objective-C classes",
             "coreml-convert keras classifier.h5 --image-input image --generate-classes --language objc -o Classifier.mlmodel"),
        ])
    static let options = Options(ConversionFlags.modelFileOptions("model.h5", "The Keras model.", layout: "1,H,W,C")
                                 + ConversionFlags.normalizationOptions)

    static func run(_ arguments: ParsedArguments) throws {
        try ConversionFlags.convertModelFile(arguments, .keras) { source, options, shapes in
            try KerasConverter.convert(model: source, options: options,
                                       inputShapes: Dictionary(shapes.map { ($0.name, $0.shape) }) { first, _ in first })
        }
    }
}
