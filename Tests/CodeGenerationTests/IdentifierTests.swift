@testable import CodeGeneration
import CoreMLBackend
import TestSupport
import XCTest

/// Names from a model file made into identifiers as Xcode makes them, and
/// text from it kept inside comments and string literals.
final class IdentifierTests: XCTestCase {
    func testNamesAreSanitizedAsXcodeDoes() {
        XCTAssertEqual(Identifiers.sanitized("image (120x120)"), "image__120x120_")
        XCTAssertEqual(Identifiers.sanitized("1x1"), "_1x1")  // as Xcode's DigitClassifier input `_1x1`
        XCTAssertEqual(Identifiers.sanitized("a-b.c/d"), "a_b_c_d")
        XCTAssertEqual(Identifiers.sanitized("café"), "caf_")
        XCTAssertEqual(Identifiers.sanitized("🙂"), "_")
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "age net"), "age_net")
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "class"), "class_")
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "new"), "new_")
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "2019 model"), "_2019_model")
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "URL"), "URL_")  // would hide Foundation's URL
        XCTAssertEqual(ClassGenerator.className(forModelNamed: "MLModel"), "MLModel_")
    }

    func testPropertyNamesAreUniqueAndNeverAMemberOfTheClass() throws {
        let interface = CoreMLInterface(specificationVersion: 1, inputs: [
            .init(name: "a b", type: .double), .init(name: "a_b", type: .double), .init(name: "featureNames", type: .double),
            .init(name: "newValue", type: .string), .init(name: "class", type: .string), .init(name: "error", type: .int64),
            .init(name: "x", type: .multiArray(dataType: "float32", shape: [2])), .init(name: "xShapedArray", type: .double),
        ], outputs: [.init(name: "provider", type: .double), .init(name: "y", type: .multiArray(dataType: "double", shape: [1])),
                     .init(name: "yShapedArray", type: .double)])
        let generator = try ClassGenerator(interface: interface, className: "M", resourceName: "M")
        XCTAssertEqual(generator.inputs.map(\.swiftName), ["a_b", "a_b_", "featureNames_", "newValue", "class", "error", "x", "xShapedArray_"])
        XCTAssertEqual(generator.inputs.map(\.objcName),
                       ["a_b", "a_b_", "featureNames_", "feature_newValue", "feature_class", "feature_error", "x", "xShapedArray"])
        XCTAssertEqual(generator.outputs.map(\.swiftName), ["provider_", "y", "yShapedArray_"])
        XCTAssertEqual(generator.inputs[4].swiftIdentifier, "`class`")
        XCTAssertEqual(generator.inputs[4].swiftLabel, "class")
    }

    func testClassNamesMustBeIdentifiers() {
        let interface = CoreMLInterface(specificationVersion: 1, inputs: [], outputs: [])
        for name in ["", "1st", "a b", "Café", "class", "id", "init", "newModel", "MLModel", "URL", "String", "NSObject"] {
            XCTAssertThrowsError(try ClassGenerator(interface: interface, className: name, resourceName: "M"), name)
        }
        XCTAssertNoThrow(try ClassGenerator(interface: interface, className: "_Model2", resourceName: "M"))
    }

    func testLiteralsKeepEveryCharacterInside() {
        XCTAssertEqual(Identifiers.swiftLiteral("say \"hi\" \\(x)\n"), "say \\\"hi\\\" \\\\(x)\\n")
        XCTAssertEqual(Identifiers.swiftLiteral("a\u{202E}b\u{1B}"), "a\\u{202e}b\\u{1b}")
        XCTAssertEqual(Identifiers.objcLiteral("??/ \"q\" \\"), "\\?\\?/ \\\"q\\\" \\\\")
        XCTAssertEqual(Identifiers.objcLiteral("a\u{1B}b\u{202E}c\u{E0001}"), "a\\033b\\u202Ec\\U000E0001")
        XCTAssertEqual(Identifiers.objcLiteral("naïve"), "naïve")
    }

    func testCommentsCannotBeEndedOrSplicedByTheirText() {
        XCTAssertEqual(Identifiers.commentLines("one\ntwo\r\nthree\u{2028}four"), ["one", "two", "", "three", "four"])
        XCTAssertEqual(Identifiers.commentLines("ends in \\"), ["ends in \\{}"])
        XCTAssertEqual(Identifiers.commentLines("ends in \\  \t"), ["ends in \\{}"])
        XCTAssertEqual(Identifiers.commentLines("a trigraph ??/"), ["a trigraph ??/{}"])
        XCTAssertEqual(Identifiers.commentLines("bidi \u{202E} and ESC \u{1B}"), ["bidi \\u{202e} and ESC \\u{1b}"])
        XCTAssertEqual(Identifiers.commentLines("*/ stays text in a // comment"), ["*/ stays text in a // comment"])
    }

    /// Member availability: nothing when the class's covers it, the later
    /// system otherwise; watchOS dropped where Apple has no such API.
    func testMembersCarryTheAvailabilityOfTheirAPIs() throws {
        let old = try ClassGenerator(interface: CoreMLInterface(specificationVersion: 1, inputs: [], outputs: []), className: "M", resourceName: "M")
        XCTAssertEqual(old.memberAvailability(.configuration)?.swiftAttributes, ["@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)"])
        XCTAssertEqual(old.memberAvailability(.compileAsync)?.swiftAttributes,
                       ["@available(macOS 13.0, iOS 16.0, tvOS 16.0, *)", "@available(watchOS, unavailable)"])
        XCTAssertEqual(old.memberAvailability(.compileAsync)?.objcAttributes,
                       "API_AVAILABLE(macos(13.0), ios(16.0), tvos(16.0)) API_UNAVAILABLE(watchos)")
        let new = try ClassGenerator(interface: CoreMLInterface(specificationVersion: 8, inputs: [], outputs: []), className: "M", resourceName: "M")
        XCTAssertNil(new.memberAvailability(.predictionAsync))
        XCTAssertEqual(new.availability.swiftAttributes, ["@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)"])
        XCTAssertNotNil(new.memberAvailability(.compileAsync))  // still not on watchOS
        XCTAssertEqual(Availability.model(specificationVersion: 42), Availability.model(specificationVersion: 9))
    }

    /// The table agrees with the converter's deployment targets (one table
    /// each: the converter's stops at what it writes).
    func testTheReleaseTableAgreesWithTheDeploymentTargets() {
        for version in DeploymentTarget.specificationVersions {
            let row = Availability.releases[Int(version)]!
            let targets = Dictionary(uniqueKeysWithValues: DeploymentTarget.oldest(for: version).map { ($0.platform, $0.version) })
            func short(_ version: String) -> String { version.hasSuffix(".0") ? String(version.dropLast(2)) : version }
            XCTAssertEqual(short(row.iOS), targets[.iOS])
            XCTAssertEqual(short(row.macOS), targets[.macOS])
            XCTAssertEqual(short(row.tvOS), targets[.tvOS])
            XCTAssertEqual(short(row.watchOS), targets[.watchOS])
        }
    }

    func testBrokenInterfacesAreRefusedWithTheirReason() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/generate")
        for (name, reason) in [("broken_no_inputs", "the model has no inputs"), ("broken_same_name", "two features are named 'a'"),
                               ("broken_predicted_name", "the predicted feature 'label' is not an output"),
                               ("broken_untyped", "input 'b' has no type this toolkit knows"),
                               ("broken_nul_name", "string field name (1) holds a NUL byte (in description.input[0].name)")] {
            XCTAssertThrowsError(try CoreMLReader.interface(from: folder.appendingPathComponent(name + ".mlmodel").path), name) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(name): \(error)")
                XCTAssertTrue("\(error)".contains("byte "), "\(name): \(error)")
            }
        }
    }
}
