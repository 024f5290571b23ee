// swift-tools-version:6.0
// libFuzzer targets for every reader of untrusted model files; see RESULTS.md
// and scripts/fuzz. A package of its own, so that building with
// `-sanitize=fuzzer,address` never touches the main build (.build/):
//
//   swift build --package-path Fuzzing --scratch-path Fuzzing/.build -c debug \
//       -Xswiftc -sanitize=fuzzer,address
//
// Why the main package's targets are re-declared here instead of reached
// through `.package(path: "..")`: ../Package.swift's library products
// (ModelFormat, CoreMLBackend, Runtime, Converters, Inspection) leave out
// targets the fuzz targets call directly (Protobuf, the *Schema targets, HDF5), and
// SwiftPM lets a package use a dependency's products only, not its targets.
// Mixing the two would declare Protobuf twice. So `Upstream` is a symlink to
// ../Sources and the target graph below mirrors ../Package.swift's (same
// names, same dependencies, same system libraries). When ../Package.swift
// adds a dependency between these targets, add it here too; once it exports
// these libraries as products, this list can shrink to `.package(path: "..")`.
import PackageDescription

func upstream(_ name: String) -> String { "Upstream/\(name)" }

/// Each fuzz target has no `main` of its own (`-parse-as-library`): its
/// `<target>_main` (the entry point SwiftPM links executables with) hands
/// control to libFuzzer's driver.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Targets/\(name)",
                      swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
    name: "ModelToolkitFuzzing",
    targets: [
        .systemLibrary(name: "CProtobufC", path: upstream("CProtobufC"), pkgConfig: "libprotobuf-c"),
        .systemLibrary(name: "CImageCodecs", path: upstream("CImageCodecs"), pkgConfig: "libpng16"),
        .systemLibrary(name: "CZlib", path: upstream("CZlib"), pkgConfig: "zlib"),
        .target(name: "CLibraryLoading", path: upstream("CLibraryLoading"), linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CBLAS", dependencies: ["CLibraryLoading"], path: upstream("CBLAS"), linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux]))]),
        .target(name: "CDNNL", dependencies: ["CLibraryLoading"], path: upstream("CDNNL"), linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux]))]),
        .target(name: "CHDF5", dependencies: ["CLibraryLoading"], path: upstream("CHDF5"), linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CoreMLSchema", dependencies: ["CProtobufC"], path: upstream("CoreMLSchema")),
        .target(name: "CaffeSchema", dependencies: ["CProtobufC"], path: upstream("CaffeSchema")),
        .target(name: "TensorFlowSchema", dependencies: ["CProtobufC"], path: upstream("TensorFlowSchema")),
        .target(name: "ONNXSchema", dependencies: ["CProtobufC"], path: upstream("ONNXSchema")),
        .target(name: "CProtobufFile", dependencies: ["CProtobufC"], path: upstream("CProtobufFile")),
        .target(name: "Threads", path: upstream("Threads")),
        .target(name: "CFileIO", path: upstream("CFileIO")),
        .target(name: "FileIO", dependencies: ["CFileIO", "Naming"], path: upstream("FileIO")),
        .target(name: "Protobuf", dependencies: ["CProtobufC", "CProtobufFile", "FileIO", "Threads"], path: upstream("Protobuf")),
        .target(name: "ModelFormat", dependencies: ["Threads", "Naming"], path: upstream("ModelFormat")),
        .target(name: "CoreMLBackend", dependencies: ["ModelFormat", "Protobuf", "FileIO", "CoreMLSchema", "CProtobufC", "Threads", "Naming"],
                path: upstream("CoreMLBackend")),
        .target(name: "CodeGeneration", dependencies: ["CoreMLBackend", "ModelFormat", "FileIO"], path: upstream("CodeGeneration")),
        .target(name: "Images", path: upstream("Images")),
        .target(name: "Runtime", dependencies: ["ModelFormat", "Images", "FileIO", "CBLAS", "CDNNL", "Threads", "Naming"], path: upstream("Runtime")),
        .target(name: "ImageFiles", dependencies: ["CImageCodecs", "Images", "FileIO"], path: upstream("ImageFiles")),
        .target(name: "Naming", path: upstream("Naming")),
        .target(name: "Conversion", dependencies: ["ModelFormat", "FileIO", "Naming"], path: upstream("Conversion")),
        .target(name: "HDF5", dependencies: ["CHDF5", "FileIO", "Threads"], path: upstream("HDF5")),
        .target(name: "CaffeFrontend",
                dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "CaffeSchema", "CProtobufC", "HDF5", "Naming"],
                path: upstream("CaffeFrontend")),
        .target(name: "KerasFrontend", dependencies: ["ModelFormat", "Conversion", "HDF5", "Naming"], path: upstream("KerasFrontend")),
        .target(name: "ONNXFrontend", dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "ONNXSchema", "CProtobufC", "Naming"],
                path: upstream("ONNXFrontend")),
        .target(name: "DarknetFrontend", dependencies: ["ModelFormat", "Conversion", "FileIO"], path: upstream("DarknetFrontend")),
        .target(name: "TFLiteFrontend", dependencies: ["ModelFormat", "Conversion", "FileIO", "Naming", "CZlib"], path: upstream("TFLiteFrontend")),
        .target(name: "TensorFlowFrontend",
                dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "TensorFlowSchema", "CProtobufC", "Naming"],
                path: upstream("TensorFlowFrontend")),

        // What the fuzz targets share: libFuzzer's driver, a reusable temporary file.
        .target(name: "FuzzSupportC", path: "SupportC"),
        .target(name: "FuzzSupport", dependencies: ["FuzzSupportC"], path: "Support"),

        fuzzTarget("fuzz-mlmodel", ["CoreMLBackend", "ModelFormat", "CodeGeneration"]),
        fuzzTarget("fuzz-text", ["Protobuf", "CaffeSchema", "TensorFlowSchema", "CaffeFrontend"]),
        fuzzTarget("fuzz-caffemodel", ["Protobuf", "CaffeSchema", "CaffeFrontend"]),
        fuzzTarget("fuzz-caffe", ["CaffeFrontend", "Conversion", "ModelFormat"]),
        fuzzTarget("fuzz-graphdef", ["TensorFlowFrontend", "Conversion", "ModelFormat"]),
        fuzzTarget("fuzz-darknet", ["DarknetFrontend", "Conversion", "ModelFormat"]),
        fuzzTarget("fuzz-onnx", ["ONNXFrontend", "ModelFormat"]),
        fuzzTarget("fuzz-labels", ["Conversion"]),
        fuzzTarget("fuzz-hdf5", ["HDF5", "CaffeFrontend", "KerasFrontend"]),
        fuzzTarget("fuzz-npy", ["Runtime", "ModelFormat"]),
        fuzzTarget("fuzz-image", ["ImageFiles", "Images"]),
        fuzzTarget("fuzz-shapes", ["ModelFormat", "Runtime"]),
        fuzzTarget("fuzz-tflite", ["TFLiteFrontend", "ModelFormat"]),
    ]
)
