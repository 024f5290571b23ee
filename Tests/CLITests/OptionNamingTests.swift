import CLI
import Conversion
import ModelFormat
import Naming
import XCTest

/// A library message mentions options by `OptionName`: a Swift caller reads
/// the library's names, a program's error line its flags.
final class OptionNamingTests: XCTestCase {
    func unknownImageInput() -> any Error {
        var options = ConversionOptions()
        options.imageInputNames = ["imgae"]
        var inputs = [Input(name: "image", kind: .array(shape: [3, 8, 8]))]
        do { try options.applyImageInputs(to: &inputs) } catch { return error }
        XCTFail("an unknown image input was taken")
        return ConversionOptionError("")
    }

    func testALibraryErrorNamesTheLibrarysOptionAndAProgramItsFlag() {
        let error = unknownImageInput()
        XCTAssertTrue(error is ConversionOptionError, "\(type(of: error))")
        XCTAssertEqual("\(error)", "imageInputNames 'imgae' is not an input of the model (its inputs: image); did you mean 'image'?")
        XCTAssertEqual(errorLine(for: error), "--image-input 'imgae' is not an input of the model (its inputs: image); did you mean 'image'?")
    }

    /// Wrapped in another error's message, the mention stays one.
    func testAMentionSurvivesWrapping() {
        var options = ConversionOptions()
        options.addSoftmax = true
        var model = Model(inputs: [Input(name: "x", kind: .array(shape: [4]))], outputs: [Output(name: "x")], nodes: [])
        XCTAssertThrowsError(try options.finish(&model, description: "", source: "model.onnx")) { error in
            XCTAssertEqual("\(error)", "model.onnx: addSoftmax applies to a classifier's scores, and this model is a detector")
            XCTAssertEqual(errorLine(for: error), "model.onnx: --add-softmax applies to a classifier's scores, and this model is a detector")
        }
    }

    func testEveryOptionHasAFlagAndALibraryName() {
        for option in OptionName.allCases {
            XCTAssertTrue(option.flag.contains("--"), "\(option)")
            XCTAssertFalse(option.libraryName.contains("--"), "\(option)")
            XCTAssertEqual("a \(option: option) b".namingOptions(\.flag), "a \(option.flag) b")
            XCTAssertEqual("a \(option: option) b".namingLibraryOptions, "a \(option.libraryName) b")
        }
        // Text with a stray marker, or none, is left as it is.
        XCTAssertEqual("plain \u{E000}x".namingLibraryOptions, "plain \u{E000}x")
    }
}
