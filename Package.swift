// swift-tools-version:6.0
// A model conversion and inspection toolkit for Core ML: Caffe, TensorFlow
// and Keras models in, `.mlmodel` out, with a CPU runtime to check the result.
// Only the toolchain and Debian's C libraries are used (see scripts/bootstrap).
import PackageDescription

let package = Package(
    name: "ModelToolkit",
    products: [
        .library(name: "ModelFormat", targets: ["ModelFormat"]),
        .library(name: "CoreMLBackend", targets: ["CoreMLBackend"]),
        .library(name: "Runtime", targets: ["Runtime", "ImageFiles", "Images"]),
        // The converters: CaffeConverter, TensorFlowConverter and KerasConverter
        // turn source files into a Model (ConversionOptions: preprocessing, labels).
        .library(name: "Converters", targets: ["CaffeFrontend", "TensorFlowFrontend", "KerasFrontend", "ONNXFrontend", "Conversion"]),
        // Any model file recognised and summarized: ModelFiles.inspect, SummaryText, InspectionJSON.
        .library(name: "Inspection", targets: ["Inspection", "ModelFiles"]),
        .executable(name: "coreml-convert", targets: ["convert"]),
        .executable(name: "coreml-inspect", targets: ["inspect"]),
        .executable(name: "coreml-predict", targets: ["predict"]),
        .executable(name: "coreml-generate", targets: ["generate"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CProtobufC", pkgConfig: "libprotobuf-c", providers: [.apt(["libprotobuf-c-dev"]), .brew(["protobuf-c"])]),
        .systemLibrary(name: "CImageCodecs", pkgConfig: "libpng16", providers: [.apt(["libpng-dev", "libturbojpeg0-dev"]), .brew(["libpng", "jpeg-turbo"])]),

        // The project's .proto schemas compiled by protoc-c (scripts/generate-protos).
        .target(name: "ProtoSchemas", dependencies: ["CProtobufC"]),
        // A protobuf-c buffer that packs a message straight into a file.
        .target(name: "CProtobufFile", dependencies: ["CProtobufC"]),
        // Files: mapped reading of regular files only, atomic writing that
        // never replaces an input or a device, cleanup on signals (CFileIO).
        .target(name: "CFileIO"),
        .target(name: "FileIO", dependencies: ["CFileIO", "Naming"]),
        // Binary protobuf decoding over memory-mapped files, packing into files.
        .target(name: "Protobuf", dependencies: ["CProtobufC", "CProtobufFile", "FileIO", "Threads"]),
        // The internal model spec: graph IR, inputs, outputs, labels, shape inference.
        .target(name: "ModelFormat", dependencies: ["Threads", "Naming"]),
        // A lock and the core count, for the few things several threads share.
        .target(name: "Threads"),
        // ModelFormat <-> Core ML `.mlmodel` files.
        .target(name: "CoreMLBackend", dependencies: ["ModelFormat", "Protobuf", "FileIO", "ProtoSchemas", "CProtobufC", "Threads"]),
        // Decoded pixels (`Image`), what image files give and the runtime takes.
        .target(name: "Images"),
        // Executes models on the CPU, to check conversions on Linux; knows no file format.
        .target(name: "Runtime", dependencies: ["ModelFormat", "Images", "FileIO", "CBLAS", "CDNNL", "Threads", "Naming"]),
        // PNG/JPEG decoding (libpng, TurboJPEG) and resizing into images.
        .target(name: "ImageFiles", dependencies: ["CImageCodecs", "Images", "FileIO"]),
        // Shared by the converters: conversion options, label files.
        .target(name: "Conversion", dependencies: ["ModelFormat", "FileIO", "Naming"]),
        // Caffe deploy prototxt + caffemodel (V1 and current) or HDF5 weights -> ModelFormat.
        .target(name: "CaffeFrontend", dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "ProtoSchemas", "CProtobufC", "HDF5", "Naming"]),
        // TensorFlow frozen GraphDef (.pb, .pbtxt) -> ModelFormat.
        .target(name: "TensorFlowFrontend", dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "ProtoSchemas", "CProtobufC", "Naming"]),
        // Keras .h5 (model_config + model_weights, through libhdf5) -> ModelFormat.
        .target(name: "KerasFrontend", dependencies: ["ModelFormat", "Conversion", "HDF5", "Naming"]),
        // ONNX models (.onnx, PyTorch's export format) -> ModelFormat.
        .target(name: "ONNXFrontend", dependencies: ["ModelFormat", "Conversion", "Protobuf", "FileIO", "ProtoSchemas", "CProtobufC", "Naming"]),
        // Darknet .cfg + .weights (YOLO's format) -> ModelFormat.
        .target(name: "DarknetFrontend", dependencies: ["ModelFormat", "Conversion", "FileIO"]),
        // Model files of every format recognised by content and read for summaries,
        // and a .mlmodel loaded for the runtime.
        .target(name: "ModelFiles", dependencies: ["Inspection", "CaffeFrontend", "TensorFlowFrontend", "KerasFrontend", "DarknetFrontend", "ONNXFrontend", "CoreMLBackend",
                                                   "Runtime", "ModelFormat", "HDF5", "FileIO", "ImageFiles", "Images", "Naming", "Threads"]),
        // Summaries of models for `inspect` and `convert`.
        .target(name: "Inspection", dependencies: ["ModelFormat", "CoreMLBackend", "HDF5", "Naming"]),
        // The typed classes Xcode generates for a model (Swift, Objective-C), from its interface.
        .target(name: "CodeGeneration", dependencies: ["CoreMLBackend", "ModelFormat", "FileIO"]),
        // Text shown to people: names from files escaped for a terminal,
        // suggestions for a mistyped name.
        .target(name: "Naming"),
        // Command-line parsing shared by the programs.
        .target(name: "CLI", dependencies: ["Naming", "Threads"]),
        // OpenBLAS's matrix products, the library loaded at first use with its
        // CPU kernels chosen from cpuid (Debian: libopenblas0; not linked).
        // dlopen of the first of a library's names, with its load-time environment.
        .target(name: "CLibraryLoading", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CBLAS", dependencies: ["CLibraryLoading"], linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // oneDNN's JIT convolutions, the library (2.x) loaded by the first convolution
        // (Debian: libdnnl-dev; not linked); without it the runtime's own kernels run.
        .target(name: "CDNNL", dependencies: ["CLibraryLoading"], linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // libhdf5's API, the library loaded at first use (Debian: libhdf5-dev; not linked,
        // so programs that read no HDF5 file do not load it and its dependencies).
        .target(name: "CHDF5", dependencies: ["CLibraryLoading"], linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Read-only HDF5 access (libhdf5) for Caffe and Keras weight files.
        .target(name: "HDF5", dependencies: ["CHDF5", "FileIO", "Threads"]),

        .executableTarget(name: "convert", dependencies: ["CLI", "CodeGeneration", "ONNXFrontend", "Naming", "ModelFormat", "CoreMLBackend", "Inspection", "ModelFiles", "CaffeFrontend", "TensorFlowFrontend", "KerasFrontend", "DarknetFrontend", "Conversion", "FileIO"]),
        .executableTarget(name: "inspect", dependencies: ["CLI", "Naming", "Inspection", "ModelFiles", "FileIO"]),
        .executableTarget(name: "generate", dependencies: ["CLI", "Naming", "CodeGeneration", "CoreMLBackend", "ModelFiles", "FileIO"]),
        .executableTarget(name: "predict", dependencies: ["CLI", "Naming", "ModelFormat", "Runtime", "Images", "ImageFiles", "FileIO", "Inspection", "ModelFiles", "Threads"]),

        // What several test targets share (paths, tolerance, layout helpers).
        .target(name: "TestSupport", dependencies: ["ModelFormat"], path: "Tests/TestSupport"),
        // The attribute sweep's runner: each frontend's cases, converted, run, compared.
        .target(name: "SweepSupport", dependencies: ["TestSupport", "Conversion", "CoreMLBackend", "Runtime", "ModelFormat"], path: "Tests/SweepSupport"),
        .testTarget(name: "FileIOTests", dependencies: ["TestSupport", "FileIO", "Naming"]),
        .testTarget(name: "ProtobufTests", dependencies: ["TestSupport", "Protobuf", "FileIO", "ProtoSchemas", "CProtobufFile", "CProtobufC", "Threads"]),
        .testTarget(name: "ModelFormatTests", dependencies: ["TestSupport", "ModelFormat"]),
        .testTarget(name: "ConversionTests", dependencies: ["TestSupport", "Conversion", "ModelFormat", "FileIO"]),
        .testTarget(name: "CoreMLBackendTests", dependencies: ["TestSupport", "CoreMLBackend", "ModelFormat", "Protobuf", "FileIO", "ProtoSchemas"]),
        .testTarget(name: "InspectionTests", dependencies: ["Inspection", "ModelFiles", "ModelFormat", "HDF5"]),
        .testTarget(name: "CLITests", dependencies: ["CLI", "Conversion", "ModelFormat", "Naming"]),
        .testTarget(name: "NamingTests", dependencies: ["Naming"]),
        .testTarget(name: "TensorFlowFrontendTests",
                    dependencies: ["TestSupport", "SweepSupport", "TensorFlowFrontend", "Conversion", "CoreMLBackend", "Runtime", "ModelFormat", "ModelFiles", "Images"]),
        .testTarget(name: "KerasFrontendTests",
                    dependencies: ["TestSupport", "SweepSupport", "KerasFrontend", "Conversion", "CoreMLBackend", "Runtime", "ModelFormat", "ModelFiles", "Images"]),
        .testTarget(name: "CaffeFrontendTests",
                    dependencies: ["TestSupport", "SweepSupport", "CaffeFrontend", "Conversion", "CoreMLBackend", "Runtime", "ImageFiles", "ModelFormat", "ModelFiles", "Images"]),
        .testTarget(name: "CommandTests", dependencies: ["TestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "ImageFilesTests", dependencies: ["ImageFiles", "Images", "Runtime", "FileIO"]),
        .testTarget(name: "RuntimeTests", dependencies: ["TestSupport", "Runtime", "Images", "CoreMLBackend", "ModelFormat"]),
        .testTarget(name: "HDF5Tests", dependencies: ["HDF5"]),
        .testTarget(name: "ONNXFrontendTests", dependencies: ["TestSupport", "SweepSupport", "ONNXFrontend", "Conversion", "CoreMLBackend", "Runtime", "ModelFormat", "ModelFiles"]),
        .testTarget(name: "DarknetFrontendTests", dependencies: ["TestSupport", "SweepSupport", "DarknetFrontend", "Conversion", "CoreMLBackend", "Runtime", "ModelFormat", "ImageFiles", "Images"]),
        // The generated classes: snapshots, and type checks against Apple's
        // declarations (Tests/Fixtures/apple-sdk) with swiftc and clang.
        .testTarget(name: "CodeGenerationTests", dependencies: ["TestSupport", "CodeGeneration", "CoreMLBackend", "CaffeFrontend",
                                                                "Conversion", "ModelFormat"], exclude: ["Snapshots"]),
        // README.md's Swift snippets, compiled and run against the library products.
        .testTarget(name: "ReadmeTests", dependencies: ["TestSupport", "CaffeFrontend", "TensorFlowFrontend", "KerasFrontend", "Conversion",
                                                        "CoreMLBackend", "ModelFormat", "Inspection", "ModelFiles", "Runtime", "ImageFiles", "Images"]),
    ]
)
