import XCTest
@testable import CLI

final class ParserTests: XCTestCase {
    private let required = ["model.prototxt", "model.caffemodel", "-o", "out.mlmodel"]

    private func parse(_ arguments: [String], options: Options = CaffeCommand.options) throws(UsageError) -> ParsedArguments {
        try ArgumentParser(options: options).parse(arguments, commandPath: ["convert", "caffe"])
    }

    private func usageError(_ arguments: [String], options: Options = CaffeCommand.options,
                            file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try parse(arguments, options: options)
            XCTFail("expected a usage error for \(arguments)", file: file, line: line)
            return nil
        } catch {
            return error.message
        }
    }

    func testValueSyntaxForms() throws {
        let cases: [(arguments: [String], name: String, expected: [String])] = [
            (["--output", "a.mlmodel"], "output", ["a.mlmodel"]),
            (["--output=a.mlmodel"], "output", ["a.mlmodel"]),
            (["--output=a=b"], "output", ["a=b"]),
            (["--output="], "output", [""]),
            (["-o", "a.mlmodel"], "output", ["a.mlmodel"]),
            (["-oa.mlmodel"], "output", ["a.mlmodel"]),
            (["-o=a.mlmodel"], "output", ["a.mlmodel"]),
            (["-o", "-"], "output", ["-"]),
            (["--image-scale", "0.5"], "image-scale", ["0.5"]),
            (["--red-bias", "-123.68"], "red-bias", ["-123.68"]),
            (["--red-bias=-123.68"], "red-bias", ["-123.68"]),
            (["--red-bias", "-.5"], "red-bias", ["-.5"]),
            (["--image-input", "a", "--image-input", "b", "--image-input=c"], "image-input", ["a", "b", "c"]),
        ]
        for (arguments, name, expected) in cases {
            let parsed = try parse(["p", "w"] + (name == "output" ? [] : ["-o", "x"]) + arguments)
            let values = parsed.strings(name)
            XCTAssertEqual(values, expected, "\(arguments)")
        }
    }

    func testPositionalsInterleavedWithOptions() throws {
        let parsed = try parse(["--is-bgr", "model.prototxt", "-o", "out", "model.caffemodel", "--image-scale", "2"])
        XCTAssertEqual(try parsed.string("prototxt"), "model.prototxt")
        XCTAssertEqual(try parsed.string("weights"), "model.caffemodel")
        XCTAssertEqual(try parsed.string("output"), "out")
        XCTAssertTrue(parsed.flag("is-bgr"))
    }

    func testFlags() throws {
        let cases: [(arguments: [String], bgr: Bool, verbose: Int, quiet: Bool)] = [
            ([], false, 0, false),
            (["--is-bgr"], true, 0, false),
            (["-v"], false, 1, false),
            (["-v", "--verbose", "-v"], false, 3, false),
            (["-vq"], false, 1, true),
            (["-qvo", "x"], false, 1, true),
        ]
        for (arguments, bgr, verbose, quiet) in cases {
            let parsed = try parse(["p", "w"] + (arguments.contains("-qvo") ? [] : ["-o", "out.mlmodel"]) + arguments)
            XCTAssertEqual(parsed.flag("is-bgr"), bgr, "\(arguments)")
            XCTAssertEqual(parsed.flagCount("verbose"), verbose, "\(arguments)")
            XCTAssertEqual(parsed.flag("quiet"), quiet, "\(arguments)")
        }
    }

    func testDoubleDashEndsOptions() throws {
        let parsed = try parse(["-o", "out", "--", "--weird.prototxt", "-v"])
        XCTAssertEqual(try parsed.string("prototxt"), "--weird.prototxt")
        XCTAssertEqual(try parsed.string("weights"), "-v")
        XCTAssertFalse(parsed.flag("verbose"))
    }

    func testNegativeNumberAsPositional() throws {
        let parsed = try parse(["-o", "out", "-1", "-2.5"])
        XCTAssertEqual(try parsed.string("prototxt"), "-1")
        XCTAssertEqual(try parsed.string("weights"), "-2.5")
    }

    func testTypedValuesAndDefaults() throws {
        let parsed = try parse(required + ["--red-bias", "-123.68", "--batch", "8"])
        XCTAssertEqual(try parsed.float("image-scale"), 1.0)
        XCTAssertEqual(try parsed.double("red-bias"), -123.68)
        XCTAssertEqual(try parsed.int("batch"), 8)
        XCTAssertEqual(try parsed.value("batch", as: Int.self), 8)
        XCTAssertFalse(parsed.isPresent("image-scale"))
        XCTAssertTrue(parsed.isPresent("red-bias"))
        XCTAssertEqual(parsed.strings("image-scale"), ["1.0"])
        XCTAssertEqual(parsed.strings("image-input"), [])
        XCTAssertNil(parsed.optionalString("image-input"))
        XCTAssertEqual(parsed.commandPath, ["convert", "caffe"])
    }

    func testAbsentOptionalValue() throws {
        let parsed = try parse(required)
        XCTAssertNil(try parsed.optionalValue("batch", as: Int.self))
        XCTAssertThrowsError(try parsed.int("batch")) { error in
            XCTAssertEqual((error as? UsageError)?.message, "missing value for option '--batch'")
        }
    }

    func testBadNumbersNameTheOption() throws {
        let cases: [(arguments: [String], message: String)] = [
            (["--image-scale", "abc"], "invalid value 'abc' for '--image-scale': expected a finite number, or a fraction such as 2/255"),
            (["--red-bias=1.2.3"], "invalid value '1.2.3' for '--red-bias': expected a finite number, or a fraction such as 2/255"),
            (["--red-bias", "nan"], "invalid value 'nan' for '--red-bias': expected a finite number, or a fraction such as 2/255"),
            (["--image-scale", "inf"], "invalid value 'inf' for '--image-scale': expected a finite number, or a fraction such as 2/255"),
            (["--red-bias", "1e39"], "invalid value '1e39' for '--red-bias': expected a finite number, or a fraction such as 2/255"),
            (["--image-scale", "1/0"], "invalid value '1/0' for '--image-scale': expected a finite number, or a fraction such as 2/255"),
            (["--image-scale", "2/255/3"], "invalid value '2/255/3' for '--image-scale': expected a finite number, or a fraction such as 2/255"),
            (["--batch", "2.5"], "invalid value '2.5' for '--batch': expected an integer"),
        ]
        for (arguments, message) in cases {
            let parsed = try parse(required + arguments)
            XCTAssertThrowsError(try CaffeCommand.run(parsed), "\(arguments)") { error in
                XCTAssertEqual((error as? UsageError)?.message, message)
            }
        }
    }

    func testCustomParser() throws {
        let parsed = try parse(["g.pb", "-o", "out", "--input", "image=1,299,299,3", "--input", "mask=1,8"],
                               options: TensorflowCommand.options)
        let inputs = try parsed.values("input", parse: InputShape.init(parsing:))
        XCTAssertEqual(inputs, [InputShape(name: "image", shape: [1, 299, 299, 3]), InputShape(name: "mask", shape: [1, 8])])
        XCTAssertEqual(try parsed.value("input", parse: InputShape.init(parsing:)).name, "mask")

        let bad = try parse(["g.pb", "-o", "out", "--input", "image=1,x"], options: TensorflowCommand.options)
        XCTAssertThrowsError(try bad.values("input", parse: InputShape.init(parsing:))) { error in
            XCTAssertEqual((error as? UsageError)?.message,
                           "invalid value 'image=1,x' for '--input': 'x' is not a positive dimension")
        }
    }

    /// Numbers take a fraction as tutorials write an image scale.
    func testNumbersAcceptFractions() {
        XCTAssertEqual(Float(argument: "2/255"), Float(2.0 / 255))
        XCTAssertEqual(Double(argument: "-1/127.5"), -1 / 127.5)
        XCTAssertEqual(Double(argument: "0.007843"), 0.007843)
        XCTAssertEqual(Double(argument: "-114.895847746"), -114.895847746)
        for bad in ["nan", "-inf", "inf/2", "1/-2", "1/", "/2", "", "1e400"] {
            XCTAssertNil(Double(argument: bad), bad)
        }
    }

    func testBoolValues() {
        XCTAssertEqual(Bool(argument: "YES"), true)
        XCTAssertEqual(Bool(argument: "0"), false)
        XCTAssertNil(Bool(argument: "maybe"))
    }

    func testUsageErrors() {
        let cases: [(arguments: [String], message: String)] = [
            (["p", "w"], "missing required option '--output'"),
            (["p", "-o", "x"], "missing required argument '<weights>'"),
            (["-o", "x"], "missing required argument '<prototxt>'"),
            (["p", "w", "extra", "-o", "x"], "unexpected argument 'extra'"),
            (required + ["--is-brg"], "unknown option '--is-brg'; did you mean '--is-bgr'?"),
            (required + ["--image-scal=2"], "unknown option '--image-scal'; did you mean '--image-scale'?"),
            (required + ["--outptu", "x"], "unknown option '--outptu'; did you mean '--output'?"),
            (required + ["--hepl"], "unknown option '--hepl'; did you mean '--help'?"),
            (required + ["--frobnicate"], "unknown option '--frobnicate'"),
            (required + ["-x"], "unknown option '-x'"),
            (required + ["-vx"], "unknown option '-x'"),
            (["p", "w", "-o"], "missing value for option '--output'"),
            (["p", "w", "--output"], "missing value for option '--output'"),
            (["p", "w", "--output", "--is-bgr"], "missing value for option '--output'"),
            (["p", "w", "-o", "--"], "missing value for option '--output'"),
            (required + ["--image-scale", "-v"], "missing value for option '--image-scale'"),
            (required + ["--is-bgr=yes"], "flag '--is-bgr' does not take a value"),
            // A second value would silently win: which output was meant?
            (required + ["--output", "y"], "'--output' given twice ('out.mlmodel', then 'y'); it takes one value"),
            (required + ["--image-scale", "2", "--image-scale=3"], "'--image-scale' given twice ('2', then '3'); it takes one value"),
            // coremltools' parameter names and other spellings get the option meant.
            (required + ["--image_input_names", "data"], "unknown option '--image_input_names'; did you mean '--image-input'?"),
            (required + ["--is_bgr"], "unknown option '--is_bgr'; did you mean '--is-bgr'?"),
            (required + ["--red_bias", "-1"], "unknown option '--red_bias'; did you mean '--red-bias'?"),
            (required + ["--IMAGE_SCALE", "2"], "unknown option '--IMAGE_SCALE'; did you mean '--image-scale'?"),
            (required + ["--batch-size", "2"], "unknown option '--batch-size'; did you mean '--batch'?"),
            (required + ["--minibatch", "2"], "unknown option '--minibatch'; did you mean '--batch'?"),
        ]
        for (arguments, message) in cases {
            XCTAssertEqual(usageError(arguments), message, "\(arguments)")
        }
    }

    func testVariadicAndOptionalPositionals() throws {
        let one = try parse(["a"], options: ListCommand.options)
        XCTAssertEqual(one.strings("rest"), [])
        let many = try parse(["a", "b", "c", "-1"], options: ListCommand.options)
        XCTAssertEqual(try many.string("first"), "a")
        XCTAssertEqual(many.strings("rest"), ["b", "c", "-1"])
        XCTAssertEqual(usageError([], options: ListCommand.options), "missing required argument '<first>'")
    }

    func testLooksLikeOption() {
        let cases: [(String, Bool)] = [
            ("-", false), ("--", true), ("-o", true), ("--output", true), ("-123.68", false),
            ("-.5", false), ("-1e3", false), ("file", false), ("", false), ("-é", true),
        ]
        for (token, expected) in cases {
            XCTAssertEqual(ArgumentParser.looksLikeOption(token), expected, token)
        }
    }

    /// An earlier version's name is refused naming the new one; a flag
    /// that once took a value says where the value goes now.
    func testFormerSpellingsAndValues() throws {
        let options = Options {
            Option("input-shape", valueName: "name=shape", repeatable: true, formerSpellings: ["input"], help: "")
            Flag("generate-classes", formerValues: FormerValues(option: "language", values: ["swift", "objc"]), help: "")
            Option("language", default: "swift", help: "")
            Positional("model", required: false, help: "")
        }
        for (arguments, message) in [(["--input", "x=1,2"], "'--input' is now '--input-shape'"),
                                     (["--input=x=1,2"], "'--input' is now '--input-shape'"),
                                     (["--generate-classes", "objc"], "'--generate-classes objc' is now '--generate-classes --language objc'"),
                                     (["--generate-classes=swift"], "'--generate-classes swift' is now '--generate-classes --language swift'")] {
            XCTAssertThrowsError(try ArgumentParser(options: options).parse(arguments)) { error in
                XCTAssertEqual((error as? UsageError)?.message, message, "\(arguments)")
            }
        }
        let parsed = try ArgumentParser(options: options).parse(["--generate-classes", "m.onnx", "--language", "objc"])
        XCTAssertTrue(parsed.flag("generate-classes"))
        XCTAssertEqual(parsed.optionalString("model"), "m.onnx")
    }
}
