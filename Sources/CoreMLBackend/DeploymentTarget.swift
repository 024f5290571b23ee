/// The oldest operating systems a model file must load on, and the Core ML
/// specification version that means (Model.proto's table):
///
/// | specification | iOS | macOS | tvOS | watchOS |
/// |---|---|---|---|---|
/// | 1 | 11 | 10.13 | 11 | 4 |
/// | 2 | 11.2 | 10.13.2 | 11.2 | 4.2 |
/// | 3 | 12 | 10.14 | 12 | 5 |
/// | 4 | 13 | 10.15 | 13 | 6 |
/// | 5 | 14 | 11 | 14 | 7 |
/// | 6 | 15 | 12 | 15 | 8 |
/// | 7 | 16 | 13 | 16 | 9 |
/// | 8 | 17 | 14 | 17 | 10 |
/// | 9 | 18 | 15 | 18 | 11 |
///
/// NeuralNetwork files are written at specification 1 to 5 (as coremltools:
/// a target from iOS 15 on asks for an ML program, `--convert-to
/// mlprogram`), ML programs from 6.
/// Named as coremltools names them (`minimum_deployment_target`,
/// `ct.target.iOS13`): `iOS13`, `macOS10_15` or `macOS10.15`, `tvOS13`,
/// `watchOS6`; case is ignored.
public struct DeploymentTarget: Equatable, Sendable, CustomStringConvertible {
    public enum Platform: String, CaseIterable, Sendable {
        case iOS, macOS, tvOS, watchOS
    }

    public var platform: Platform
    /// The version as written in the table: "13", "10.15", "11.2".
    public var version: String
    /// The Core ML specification version it loads.
    public var specificationVersion: Int32

    /// Per specification version 1...9, the OS version of each platform
    /// (coremltools' `AvailableTarget`).
    static let table: [(Int32, [Platform: String])] = [
        (1, [.iOS: "11", .macOS: "10.13", .tvOS: "11", .watchOS: "4"]),
        (2, [.iOS: "11.2", .macOS: "10.13.2", .tvOS: "11.2", .watchOS: "4.2"]),
        (3, [.iOS: "12", .macOS: "10.14", .tvOS: "12", .watchOS: "5"]),
        (4, [.iOS: "13", .macOS: "10.15", .tvOS: "13", .watchOS: "6"]),
        (5, [.iOS: "14", .macOS: "11", .tvOS: "14", .watchOS: "7"]),
        (6, [.iOS: "15", .macOS: "12", .tvOS: "15", .watchOS: "8"]),
        (7, [.iOS: "16", .macOS: "13", .tvOS: "16", .watchOS: "9"]),
        (8, [.iOS: "17", .macOS: "14", .tvOS: "17", .watchOS: "10"]),
        (9, [.iOS: "18", .macOS: "15", .tvOS: "18", .watchOS: "11"]),
    ]

    /// The specification versions of NeuralNetwork files (coremltools
    /// refuses a NeuralNetwork for a target from iOS 15 on).
    public static let neuralNetworkVersions: ClosedRange<Int32> = 1...5
    /// The first specification version of ML programs.
    public static let firstProgramVersion: Int32 = 6

    /// Every name this accepts, in the table's order: for messages.
    public static var names: [String] {
        table.flatMap { _, versions in Platform.allCases.map { "\($0.rawValue)\(String(versions[$0]!.map { $0 == "." ? "_" : $0 }))" } }
    }

    /// The target named `text`, or nil.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        guard let platform = Platform.allCases.first(where: { lowered.hasPrefix($0.rawValue.lowercased()) }) else { return nil }
        let version = String(lowered.dropFirst(platform.rawValue.count).map { $0 == "_" ? "." : $0 })
        guard let (specification, _) = Self.table.first(where: { $0.1[platform] == version }) else { return nil }
        self.platform = platform
        self.version = version
        specificationVersion = specification
    }

    /// The targets of each platform for a specification version.
    public static func oldest(for specificationVersion: Int32) -> [DeploymentTarget] {
        guard let versions = table.first(where: { $0.0 == specificationVersion })?.1 else { return [] }
        return Platform.allCases.compactMap { DeploymentTarget("\($0.rawValue)\(versions[$0]!)") }
    }

    public var description: String { "\(platform.rawValue) \(version)" }

    /// The specification versions of the table, oldest first.
    public static var specificationVersions: ClosedRange<Int32> { table.first!.0...table.last!.0 }

    /// "iOS 13, macOS 10.15, tvOS 13, watchOS 6": the oldest systems that
    /// load `specificationVersion`.
    public static func systems(for specificationVersion: Int32) -> String {
        oldest(for: specificationVersion).map(\.description).joined(separator: ", ")
    }
}
