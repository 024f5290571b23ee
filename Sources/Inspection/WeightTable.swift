import Foundation
import ModelFormat

/// Minimum, maximum, mean and standard deviation of a tensor's finite
/// values, and how many are NaN or infinite.
public struct WeightStatistics: Equatable, Sendable {
    public var count: Int
    /// Over the finite values; nil when there are none.
    public var minimum: Float?
    public var maximum: Float?
    public var mean: Double?
    /// Population standard deviation.
    public var standardDeviation: Double?
    public var nanCount: Int
    public var infinityCount: Int

    /// Statistics of `weights`, in two passes (mean, then spread) in double
    /// precision; nil when the values were not loaded.
    public init?(_ weights: Weights) {
        guard weights.isLoaded || weights.count == 0 else { return nil }
        var minimum = Float.infinity, maximum = -Float.infinity
        var sum = 0.0, finite = 0, nans = 0, infinities = 0
        weights.withUnsafeBufferPointer { values in
            for value in values {
                if value.isNaN {
                    nans += 1
                } else if value.isInfinite {
                    infinities += 1
                } else {
                    minimum = Swift.min(minimum, value)
                    maximum = Swift.max(maximum, value)
                    sum += Double(value)
                    finite += 1
                }
            }
        }
        count = weights.count
        nanCount = nans
        infinityCount = infinities
        guard finite > 0 else { return }
        let mean = sum / Double(finite)
        var squares = 0.0
        weights.withUnsafeBufferPointer { values in
            for value in values where value.isFinite {
                let difference = Double(value) - mean
                squares += difference * difference
            }
        }
        self.minimum = minimum
        self.maximum = maximum
        self.mean = mean
        self.standardDeviation = (squares / Double(finite)).squareRoot()
    }
}

/// One row per weight tensor, for `inspect --weight-stats`: layer, tensor,
/// shape, stored precision, min / max / mean / std, and NaN and Inf counts
/// when a tensor holds any.
public enum WeightTable {
    public static func render(_ inspected: InspectedModel, style: TextStyle = .plain) -> String {
        var rows = [["layer", "tensor", "shape", "count", "precision", "min", "max", "mean", "std", "NaN", "Inf"]]
        var warnings: Set<String> = []
        for tensor in inspected.weightTensors {
            let statistics = WeightStatistics(tensor.values)
            let shape = "[" + tensor.shape.map(String.init).joined(separator: ",") + "]"
            var row = [tensor.layer, tensor.name, shape, SummaryText.grouped(tensor.count), SummaryText.precisionDetail(tensor.precision)]
            if let statistics {
                row += [statistics.minimum.map { number(Double($0)) } ?? "-", statistics.maximum.map { number(Double($0)) } ?? "-",
                        statistics.mean.map(number) ?? "-", statistics.standardDeviation.map(number) ?? "-",
                        String(statistics.nanCount), String(statistics.infinityCount)]
                if statistics.nanCount > 0 || statistics.infinityCount > 0 { warnings.insert(tensor.layer + "/" + tensor.name) }
            } else {
                row += ["-", "-", "-", "-", "-", "-"]
            }
            rows.append(row)
        }
        if rows.count == 1, let outline = inspected.outline, outline.weightTensors ?? 0 > 0 {
            // A model that does not convert: its stored tensors are counted, not read.
            return "Weight statistics: not read for a model that does not convert (\(outline.weightTensors!) stored tensors).\n"
        }
        if rows.count == 1 { return "No weight tensors.\n" }
        if warnings.isEmpty {
            // No NaN and no infinity anywhere: two columns of zeros left out (to fit a terminal); --json keeps the counts.
            rows = rows.map { Array($0.prefix(9)) }
        }
        var text = LayerTable.align(rows, rightAligned: [3, 5, 6, 7, 8, 9, 10], style: style)
        if !warnings.isEmpty {
            text += style.warning("\(warnings.count) tensor(s) hold NaN or infinite values") + "\n"
        }
        return text
    }

    /// Four significant digits: `0.1235`, `-1.5e-05`, `1234`.
    public static func number(_ value: Double) -> String {
        value == 0 ? "0" : String(format: "%.4g", value)
    }
}
