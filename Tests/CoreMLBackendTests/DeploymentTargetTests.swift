import CoreMLBackend
import XCTest

/// Model.proto's table of specification versions and operating systems,
/// under coremltools' names.
final class DeploymentTargetTests: XCTestCase {
    func testNamesMapToTheirSpecificationVersion() {
        let cases: [(String, Int32)] = [
            ("iOS11", 1), ("macOS10_13", 1), ("tvOS11", 1), ("watchOS4", 1),
            ("iOS11_2", 2), ("iOS11.2", 2), ("macOS10_13_2", 2), ("watchOS4_2", 2),
            ("iOS12", 3), ("macOS10_14", 3), ("tvOS12", 3), ("watchOS5", 3),
            ("iOS13", 4), ("ios13", 4), ("macOS10.15", 4), ("MACOS10_15", 4), ("tvOS13", 4), ("watchOS6", 4),
            ("iOS14", 5), ("macOS11", 5), ("tvOS14", 5), ("watchOS7", 5),
            // coremltools' AvailableTarget from iOS 15 (ML programs' targets).
            ("iOS15", 6), ("macOS12", 6), ("tvOS15", 6), ("watchOS8", 6), ("iOS16", 7), ("macOS13", 7), ("watchOS9", 7),
            ("iOS17", 8), ("macOS14", 8), ("tvOS17", 8), ("watchOS10", 8), ("iOS18", 9), ("macOS15", 9), ("tvOS18", 9), ("watchOS11", 9),
        ]
        for (name, version) in cases {
            XCTAssertEqual(DeploymentTarget(name)?.specificationVersion, version, name)
        }
        for bad in ["iOS", "iOS10", "iOS19", "watchOS12", "android13", "macOS10_16", "13", ""] {
            XCTAssertNil(DeploymentTarget(bad), bad)
        }
        XCTAssertEqual(DeploymentTarget.names.count, 36)
        XCTAssertEqual(DeploymentTarget.oldest(for: 4).map(\.description), ["iOS 13", "macOS 10.15", "tvOS 13", "watchOS 6"])
    }
}
