import CLI

/// A toy `convert` program used by the tests: `convert caffe ...`, `convert tensorflow ...`.
enum ConvertCommand: Command {
    static let configuration = CommandConfiguration(
        name: "convert", abstract: "Convert models to Core ML.",
        subcommands: [CaffeCommand.self, TensorflowCommand.self], versionDetails: "writes specification versions 1 to 5")
}

struct CaffeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "caffe", abstract: "Convert a Caffe model to Core ML.",
        discussion: "Reads a deploy prototxt and its trained weights and writes an .mlmodel.")
    static let options = Options {
        Positional("prototxt", help: "Deploy definition (.prototxt).")
        Positional("weights", help: "Trained weights (.caffemodel).")
        Option("image-input", valueName: "name", repeatable: true, help: "Treat this input as an image.")
        Flag("is-bgr", help: "Image channels are in BGR order.")
        Option("image-scale", valueName: "scale", default: "1.0", help: "Multiply pixel values by this.")
        Option("red-bias", valueName: "bias", default: "0.0", help: "Added to the red channel.")
        Option("batch", valueName: "n", otherSpellings: ["batch_size", "minibatch"], help: "Batch size.")
        Flag("verbose", short: "v", help: "Print progress.")
        Flag("quiet", short: "q", help: "Print nothing.")
        Option("output", short: "o", valueName: "path", required: true, help: "Where to write the model.")
    }

    /// Validates its typed arguments so accessor errors surface through `execute`.
    static func run(_ args: ParsedArguments) throws {
        _ = try args.string("output")
        _ = try args.float("image-scale")
        _ = try args.float("red-bias")
        _ = try args.optionalValue("batch", as: Int.self)
    }
}

struct TensorflowCommand: Command {
    static let configuration = CommandConfiguration(
        name: "tensorflow", abstract: "Convert a frozen TensorFlow graph to Core ML.")
    static let options = Options {
        Positional("graph", valueName: "graph.pb", help: "Frozen GraphDef.")
        Option("input", valueName: "NAME=SHAPE", repeatable: true, help: "Input name and shape, e.g. x=1,224,224,3.")
        Option("output", short: "o", valueName: "path", required: true, help: "Where to write the model.")
    }

    static func run(_ args: ParsedArguments) throws {
        _ = try args.values("input", parse: InputShape.init(parsing:))
        if args.strings("input").contains("fail=1") { throw ConversionError.unsupported("layer 'Foo'") }
    }
}

/// `NAME=d1,d2,...`, parsed by a caller-supplied closure.
struct InputShape: Equatable {
    var name: String
    var shape: [Int]

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(name: String, shape: [Int]) {
        self.name = name
        self.shape = shape
    }

    init(parsing text: String) throws {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty else { throw Malformed(description: "expected NAME=d1,d2,...") }
        var shape: [Int] = []
        for piece in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            guard let dimension = Int(piece), dimension > 0 else {
                throw Malformed(description: "'\(piece)' is not a positive dimension")
            }
            shape.append(dimension)
        }
        self.init(name: String(parts[0]), shape: shape)
    }
}

enum ConversionError: Error, CustomStringConvertible {
    case unsupported(String)
    var description: String {
        switch self {
        case .unsupported(let what): "unsupported \(what)"
        }
    }
}

/// A command whose help and usage line are checked verbatim.
struct SmallCaffeCommand: Command {
    static let configuration = CommandConfiguration(name: "caffe", abstract: "Convert a Caffe model to Core ML.")
    static let options = Options {
        Positional("prototxt", help: "Deploy definition (.prototxt).")
        Positional("weights", help: "Trained weights (.caffemodel).")
        Option("image-input", valueName: "name", repeatable: true, help: "Treat this input as an image.")
        Option("output", short: "o", valueName: "path", required: true, help: "Where to write the model.")
    }
    static func run(_ args: ParsedArguments) throws {}
}

/// A command with optional and variadic positionals.
struct ListCommand: Command {
    static let configuration = CommandConfiguration(name: "list", abstract: "List things.")
    static let options = Options {
        Positional("first", help: "First item.")
        Positional("rest", required: false, repeatable: true, help: "More items.")
    }
    static func run(_ args: ParsedArguments) throws {}
}
