import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Fixed pseudo-random weights.
func randomWeights(_ count: Int, seed: UInt64, scale: Float = 1) -> Weights {
    var random = SplitMix64(seed: seed)
    return Weights((0..<count).map { _ in random.nextFloat(in: -scale...scale) })
}
