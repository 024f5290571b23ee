import Protobuf
import XCTest

/// The arena refuses what it cannot give, never traps: sizes past its
/// budget, sizes whose rounding overflows, and requests calloc fails.
final class ArenaTests: XCTestCase {
    func testImpossibleRequestsThrowInsteadOfTrapping() {
        let arena = Arena()
        // 4 EiB: within an unlimited budget, but no system has it; calloc returns NULL (it was force-unwrapped).
        XCTAssertThrowsError(try arena.allocate(1 << 62)) { error in
            guard case ArenaError.outOfMemory(let requested) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(requested, 1 << 62)
        }
        // Rounding Int.max up to 8 bytes overflows (it trapped).
        XCTAssertThrowsError(try arena.allocate(Int.max - 3)) { error in
            guard case ArenaError.overBudget = error else { return XCTFail("\(error)") }
        }
        // A refused request costs nothing: the arena still works and counts only what it gave.
        XCTAssertNoThrow(try arena.allocate(24))
        XCTAssertEqual(arena.allocatedBytes, 24)
    }

    func testTheBudgetHolds() throws {
        let arena = Arena(budget: 64)
        _ = try arena.allocate(60)
        XCTAssertThrowsError(try arena.allocate(8)) { error in
            guard case ArenaError.overBudget(let requested, let budget) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(requested, 8)
            XCTAssertEqual(budget, 64)
        }
    }
}
