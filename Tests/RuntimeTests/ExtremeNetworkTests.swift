import ModelFormat
import Runtime
import XCTest

/// Models whose attributes pass validation but are extreme (windows of
/// 2^30, tensors near the size limit, im2col matrices of terabytes): the
/// runtime compiles them or refuses them with an error, never traps, and
/// never starts allocating what the machine does not have.
final class ExtremeNetworkTests: XCTestCase {
    func network(_ operation: Op, input: [Int], weights: Int? = nil, kernels: KernelChoice = .fastest) -> Result<Network, any Error> {
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: input))], outputs: [Output(name: "y")],
                          nodes: [Node(name: "y", operation: operation, inputs: ["x"], outputs: ["y"])])
        return Result { try Network(model, kernels: kernels) }
    }

    func testExtremeButValidAttributesCompileOrAreRefused() {
        let big = 1 << 30
        let cases: [(String, Op, [Int])] = [
            ("pooling window 2^30, same", .pooling(Pooling(kind: .max, kernel: Size2(big, big), stride: Size2(1, 1),
                                                            padding: .same(topLeftHeavy: false))), [3, 8, 8]),
            ("average pooling stride 2^30", .pooling(Pooling(kind: .average, kernel: Size2(1, 1), stride: Size2(big, big))), [3, 8, 8]),
            ("upsample to 2^30 values", .upsample(Upsample(scale: Size2(1 << 15, 1 << 15))), [1, 1, 1]),
            ("padding to 2^30 values", .padding(Padding(kind: .constant(0), edges: Edges(top: big - 1))), [1, 1, 1]),
            ("LRN window 2^30", .lrn(LRN(alpha: 1, beta: 1, localSize: big, k: 1)), [3, 8, 8]),
            ("slice stride 2^30", .slice(Slice(axis: .height, start: 0, end: 8, stride: big)), [3, 8, 8]),
        ]
        for (name, operation, input) in cases {
            switch network(operation, input: input) {
            case .success: break
            case .failure(let error): XCTAssertFalse("\(error)".isEmpty, name)
            }
        }
    }

    /// A 15x15 convolution of 512 channels over a 1024x1024 map, whose im2col
    /// matrix alone would take 450 GB: on the generic kernels, refused by the
    /// memory budget before anything is allocated. oneDNN's direct kernel
    /// needs no such matrix: there the 2 GB input is all it takes.
    func testAConvolutionWhoseScratchWouldNotFitIsRefused() throws {
        let conv = Convolution(outputChannels: 1, kernelChannels: 512, kernel: Size2(15, 15), padding: .same(topLeftHeavy: false),
                               weights: Weights([Float](repeating: 0.01, count: 512 * 225)))
        let result = network(.convolution(conv), input: [512, 1 << 10, 1 << 10], kernels: .generic)
        guard case .failure(let error) = result else { return XCTFail("a 450 GB scratch matrix was accepted") }
        XCTAssertTrue("\(error)".contains("more than this machine can give"), "\(error)")
        if case .failure(let error) = network(.convolution(conv), input: [512, 1 << 10, 1 << 10]) {
            XCTAssertTrue("\(error)".contains("more than this machine can give"), "\(error)")
        }
    }
}
