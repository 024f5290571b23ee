import CodeGeneration
import Foundation
import TestSupport
import XCTest

/// The generated classes compiled as an app would compile them, against
/// declaration-only stand-ins for Apple's frameworks (Tests/Fixtures/apple-sdk:
/// each declaration cites the documentation page it was read from): swiftc
/// checks names, labels, types, optionals, throws and async; clang checks
/// the Objective-C the same way and, at each platform's oldest target the
/// classes support, that no API is used before the system that has it
/// (-Werror=unguarded-availability). Nothing runs: Core ML is not here.
final class TypeCheckTests: XCTestCase {
    static let sdk = repositoryRoot.appendingPathComponent("Tests/Fixtures/apple-sdk")

    /// The generated files of every model in one folder, and the stand-in
    /// `CoreML` module built beside them.
    private func prepare() throws -> URL {
        let folder = try temporaryFolder()
        for (_, generator) in try GeneratedModels.all() {
            for language in SourceLanguage.allCases {
                for file in generator.files(in: language) {
                    try file.text.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
                }
            }
        }
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.sdk.appendingPathComponent("swift").path)
            .filter { $0.hasSuffix(".swift") }.sorted().map { Self.sdk.appendingPathComponent("swift/\($0)").path }
        try run("swiftc", ["-emit-module", "-module-name", "CoreML", "-parse-as-library",
                           "-emit-module-path", folder.appendingPathComponent("CoreML.swiftmodule").path] + sources, in: folder)
        return folder
    }

    /// In both language modes (Swift 6's strict concurrency included).
    func testGeneratedSwiftTypeChecks() throws {
        let folder = try prepare()
        let names = try GeneratedModels.all().map { $0.generator.className + ".swift" }
        try Self.usage.write(to: folder.appendingPathComponent("Usage.swift"), atomically: true, encoding: .utf8)
        for mode in ["5", "6"] {
            try run("swiftc", ["-typecheck", "-swift-version", mode, "-I", folder.path, "-warnings-as-errors"] + names + ["Usage.swift"], in: folder)
        }
    }

    /// Each model's .m (which imports its .h) at the oldest iOS, macOS,
    /// tvOS and watchOS its classes declare.
    func testGeneratedObjectiveCCompilesWithoutUnguardedAvailability() throws {
        let folder = try prepare()
        try Self.objcUsage.write(to: folder.appendingPathComponent("Usage.m"), atomically: true, encoding: .utf8)
        let implementations = try GeneratedModels.all().map { $0.generator.className + ".m" } + ["Usage.m"]
        for target in ["arm64-apple-ios11.0", "x86_64-apple-macos10.13", "arm64-apple-tvos11.0", "arm64_32-apple-watchos4.0"] {
            try clang(implementations, target: target, in: folder)
        }
    }

    /// `clang -fsyntax-only` of `files` for `target`, warnings as errors;
    /// whether it passed.
    @discardableResult
    private func clang(_ files: [String], target: String, in folder: URL, expectingFailure: Bool = false) throws -> Bool {
        let arguments = ["-fsyntax-only", "-x", "objective-c", "-fobjc-arc", "-fblocks", "-target", target,
                         "-Wall", "-Wextra", "-Werror", "-Werror=unguarded-availability", "-Werror=unguarded-availability-new",
                         "-Wno-unused-parameter", "-nostdinc", "-isystem", try clangResourceHeaders(),
                         "-I", Self.sdk.appendingPathComponent("include").path, "-I", folder.path] + files
        if expectingFailure { return try status("clang", arguments, in: folder) == 0 }
        try run("clang", arguments, in: folder)
        return true
    }

    /// The declarations' own check: every Swift declaration used once, and
    /// an Objective-C file using an iOS 13 API unguarded refused at iOS 11.
    func testTheDeclarationsCheckThemselves() throws {
        try run("bash", [Self.sdk.appendingPathComponent("selftest/run.sh").path], in: try temporaryFolder())
    }

    /// The checks can fail: each of these slips, made to a generated file,
    /// is caught (so a passing check means something).
    func testTheChecksCatchSlips() throws {
        let folder = try prepare()
        let swift = try String(contentsOf: folder.appendingPathComponent("AgeNet.swift"), encoding: .utf8)
        let swiftSlips = [
            ("a missing try", "self.init(data: try MLFeatureValue(cgImage:", "self.init(data: MLFeatureValue(cgImage:"),
            ("an optional taken as a value", "options: nil).imageBufferValue!)", "options: nil).imageBufferValue)"),
            ("a misspelt label", "MLFeatureValue(pixelBuffer:", "MLFeatureValue(pixelbuffer:"),
            ("a wrong type", "var classLabel: String {", "var classLabel: Int64 {"),
            ("an async call without await", "let model = try await MLModel.load(", "let model = try MLModel.load("),
        ]
        for (slip, from, to) in swiftSlips {
            XCTAssertTrue(swift.contains(from), slip)
            try swift.replacingOccurrences(of: from, with: to).write(to: folder.appendingPathComponent("AgeNet.swift"), atomically: true, encoding: .utf8)
            try run("swiftc", ["-typecheck", "-I", folder.path, "AgeNet.swift"], in: folder, expectingFailure: slip)
        }
        let header = try String(contentsOf: folder.appendingPathComponent("AgeNet.h"), encoding: .utf8)
        let implementation = try String(contentsOf: folder.appendingPathComponent("AgeNet.m"), encoding: .utf8)
        let objcSlips = [
            ("an iOS 13 API in a method not marked iOS 13", "AgeNet.h",
             " API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)) __attribute__((visibility(\"hidden\")));", " __attribute__((visibility(\"hidden\")));"),
            ("an API missing on watchOS in a method watchOS has", "AgeNet.h", " API_UNAVAILABLE(watchos)", ""),
            ("a misspelt selector", "AgeNet.m", "featureValueWithPixelBuffer:", "featureValueWithPixelbuffer:"),
        ]
        for (slip, file, from, to) in objcSlips {
            let original = file == "AgeNet.h" ? header : implementation
            XCTAssertTrue(original.contains(from), slip)
            try original.replacingOccurrences(of: from, with: to).write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
            var failed = false
            for target in ["arm64-apple-ios11.0", "arm64_32-apple-watchos4.0"] {
                failed = try !clang(["AgeNet.m"], target: target, in: folder, expectingFailure: true) || failed
            }
            XCTAssertTrue(failed, "clang accepted \(slip)")
            try original.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
    }

    /// The issue's done-when, in an app's words: `AgeNetInput(data:)`,
    /// `AgeNetOutput.classLabel`, `AgeNet(contentsOf:)`; and the README's
    /// downloaded-model lines.
    static var usage: String {
        """
        import CoreML
        #if canImport(FoundationNetworking)
        import FoundationNetworking  // URLSession, in Foundation on Apple's systems
        #endif

        @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
        func classify(_ buffer: CVPixelBuffer, _ picture: CGImage, compiledModel: URL) throws -> (String, [String: Double]) {
            let model = try AgeNet(contentsOf: compiledModel)
            let output: AgeNetOutput = try model.prediction(input: AgeNetInput(data: buffer))
            let again = try model.prediction(input: AgeNetInput(dataWith: picture))
            _ = again.classLabel
            return (output.classLabel, output.classLabelProbs)
        }

        @available(iOS 17.0, macOS 14.0, tvOS 17.0, *)
        @available(watchOS, unavailable)
        func readme(photoURL: URL) async throws {
        \(try! readmeDownloadSnippet().split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
        }
        """
    }

    static let objcUsage = """
        #import "AgeNet.h"

        API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
        static NSString * _Nullable TopLabel(NSURL *compiledModel, CVPixelBufferRef buffer, CGImageRef picture, NSError **error) {
            AgeNet *model = [[AgeNet alloc] initWithContentsOfURL:compiledModel error:error];
            AgeNetOutput *output = [model predictionFromFeatures:[[AgeNetInput alloc] initWithData:buffer] error:error];
            AgeNetInput *fromPicture = [[AgeNetInput alloc] initWithDataFromCGImage:picture error:error];
            if (fromPicture == nil) { return nil; }
            NSDictionary<NSString *, NSNumber *> *probabilities = output.classLabelProbs;
            (void)probabilities;
            return output.classLabel;
        }

        void UseTopLabel(void);
        void UseTopLabel(void) {
            if (@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)) {
                (void)TopLabel;
            }
        }
        """

    /// The block README.md marks as type-checked here.
    static func readmeDownloadSnippet() throws -> String {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- app code: CodeGenerationTests type-checks this block -->"
        guard let start = readme.range(of: marker + "\n```\n"),
              let end = readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex) else {
            throw XCTSkip("README.md has no block after '\(marker)'")
        }
        return String(readme[start.upperBound..<end.lowerBound])
    }

    private func clangResourceHeaders() throws -> String {
        let directory = try run("clang", ["-print-resource-dir"], in: FileManager.default.temporaryDirectory)
        return directory.trimmingCharacters(in: .whitespacesAndNewlines) + "/include"
    }

    /// Runs a tool of the toolchain; fails the test with its output unless
    /// it exits 0 (or, `expectingFailure`, unless it fails: the reason).
    @discardableResult
    private func run(_ tool: String, _ arguments: [String], in folder: URL, expectingFailure: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let (status, text) = try execute(tool, arguments, in: folder)
        if let expectingFailure {
            XCTAssertNotEqual(status, 0, "\(tool) accepted \(expectingFailure)", file: file, line: line)
        } else {
            XCTAssertEqual(status, 0, "\(tool) \(arguments.joined(separator: " ")):\n\(text)", file: file, line: line)
        }
        return text
    }

    private func status(_ tool: String, _ arguments: [String], in folder: URL) throws -> Int32 {
        try execute(tool, arguments, in: folder).status
    }

    private func execute(_ tool: String, _ arguments: [String], in folder: URL) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
