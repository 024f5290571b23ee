/// The operating systems an API or a model file needs, as one row of the
/// table of Core ML releases: each specification version came with one
/// release of each system (Core ML's Model.proto), and each Core ML API
/// appeared with one of them (the dates on Apple's documentation pages).
struct Availability: Comparable, Sendable {
    /// The Core ML specification version of the release.
    var release: Int
    /// Apple documents some APIs (model compilation) on every system but watchOS.
    var onWatchOS = true

    static let releases: [Int: (iOS: String, macOS: String, tvOS: String, watchOS: String)] = [
        1: ("11.0", "10.13", "11.0", "4.0"),
        2: ("11.2", "10.13.2", "11.2", "4.2"),
        3: ("12.0", "10.14", "12.0", "5.0"),
        4: ("13.0", "10.15", "13.0", "6.0"),
        5: ("14.0", "11.0", "14.0", "7.0"),
        6: ("15.0", "12.0", "15.0", "8.0"),
        7: ("16.0", "13.0", "16.0", "9.0"),
        8: ("17.0", "14.0", "17.0", "10.0"),
        9: ("18.0", "15.0", "18.0", "11.0"),
    ]

    /// What a model file of `specificationVersion` needs: a newer version
    /// than the table knows needs the newest row.
    static func model(specificationVersion: Int) -> Availability {
        Availability(release: min(max(specificationVersion, 1), releases.keys.max()!))
    }

    // The APIs generated code uses beyond `MLModel`, `MLFeatureValue` and
    // `MLPredictionOptions` of the first release (their pages are cited in
    // Tests/Fixtures/apple-sdk).
    /// `MLModelConfiguration`, `MLArrayBatchProvider`, `predictions(from:options:)`.
    static let configuration = Availability(release: 3)
    /// `MLFeatureValue(cgImage:...)`, `MLFeatureValue(imageAt:...)`.
    static let imageConversion = Availability(release: 4)
    /// `MLModel.load(contentsOf:configuration:completionHandler:)`.
    static let loadCompletion = Availability(release: 5)
    /// `MLModel.load(contentsOf:configuration:) async`, `MLShapedArray`.
    static let loadAsync = Availability(release: 6)
    /// `MLModel.compileModel(at:) async` (not on watchOS).
    static let compileAsync = Availability(release: 7, onWatchOS: false)
    /// `MLModel.prediction(from:options:) async`.
    static let predictionAsync = Availability(release: 8)

    static func < (lhs: Availability, rhs: Availability) -> Bool {
        lhs.release < rhs.release
    }

    /// The later of two needs.
    func and(_ other: Availability) -> Availability {
        Availability(release: max(release, other.release), onWatchOS: onWatchOS && other.onWatchOS)
    }

    /// `@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, *)`, and a
    /// second line for watchOS when it lacks the API.
    var swiftAttributes: [String] {
        let row = Self.releases[release]!
        var systems = ["macOS \(row.macOS)", "iOS \(row.iOS)", "tvOS \(row.tvOS)"]
        if onWatchOS { systems.append("watchOS \(row.watchOS)") }
        var lines = ["@available(\(systems.joined(separator: ", ")), *)"]
        if !onWatchOS { lines.append("@available(watchOS, unavailable)") }
        return lines
    }

    /// `API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))`,
    /// with `API_UNAVAILABLE(watchos)` when watchOS lacks the API.
    var objcAttributes: String {
        let row = Self.releases[release]!
        var systems = ["macos(\(row.macOS))", "ios(\(row.iOS))"]
        if onWatchOS { systems.append("watchos(\(row.watchOS))") }
        systems.append("tvos(\(row.tvOS))")
        return "API_AVAILABLE(\(systems.joined(separator: ", ")))" + (onWatchOS ? "" : " API_UNAVAILABLE(watchos)")
    }
}
