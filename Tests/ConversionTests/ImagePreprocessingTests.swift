import Conversion
import ModelFormat
import XCTest

/// Preprocessing reaches the library as typed values, nil unless given; its
/// mistakes name the parameters, not a program's option spellings.
final class ImagePreprocessingTests: XCTestCase {
    func inputs(channels: Int) -> [Input] { [Input(name: "data", kind: .array(shape: [channels, 4, 4]))] }

    func mistake(_ options: ConversionOptions, channels: Int = 3) -> ImagePreprocessingError? {
        var inputs = inputs(channels: channels)
        do { try options.applyImageInputs(to: &inputs) } catch { return error as? ImagePreprocessingError }
        return nil
    }

    func testGivenValuesAreTheNonNilOnesInOrder() {
        var options = ConversionOptions()
        XCTAssertEqual(options.givenPreprocessing, [])
        options.imageScale = 1  // given, though it is the default
        options.redBias = 0
        options.normalization = Normalization(mean: nil, std: [0.5])
        XCTAssertEqual(options.givenPreprocessing, [.redBias, .imageScale, .std])
        XCTAssertEqual(options.normalization?.mean, [0])
        let error = mistake(options)
        XCTAssertEqual(error?.parameters, [.redBias, .imageScale, .std])
        XCTAssertEqual(error?.problem, .noImageInput(candidate: "data", inputs: ["data"]))
        XCTAssertEqual(error?.description, "redBias, imageScale, std apply to an image input, and none is named: "
                       + "add imageInputNames [\"data\"] (the model's inputs: data)")
    }

    func testChannelsTheImageDoesNotHave() {
        var options = ConversionOptions()
        options.imageInputNames = ["data"]
        options.isBGR = true
        options.blueBias = -1
        XCTAssertEqual(mistake(options, channels: 1)?.parameters, [.isBGR, .blueBias])
        XCTAssertEqual(mistake(options, channels: 1)?.problem, .colorForGrayscale(input: "data"))
        XCTAssertNil(mistake(options, channels: 3))
        options = ConversionOptions()
        options.imageInputNames = ["data"]
        options.grayBias = 0
        XCTAssertEqual(mistake(options, channels: 3)?.problem, .grayForColor(input: "data"))
    }

    func testUngivenValuesAreCoreMLsDefaults() throws {
        var options = ConversionOptions()
        options.imageInputNames = ["data"]
        var inputs = inputs(channels: 3)
        try options.applyImageInputs(to: &inputs)
        let image = try XCTUnwrap(inputs[0].image)
        XCTAssertEqual([image.scale, image.redBias, image.greenBias, image.blueBias, image.grayBias], [1, 0, 0, 0, 0])
    }
}
