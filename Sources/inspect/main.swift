#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLI
import Inspection
import ModelFiles

/// `--weights` is a flag (list the weight tensors), but after a Caffe deploy
/// prototxt `--weights W.caffemodel` names its weights, as the Caffe tools
/// spell it: when the value is a Caffe weights file (by content) and a
/// prototxt is among the files, it becomes `--weights-file W.caffemodel`.
/// `--weights=W.caffemodel` always does.
func rewritingWeightsFiles(_ arguments: [String]) -> [String] {
    let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
    var arguments = arguments
    for index in arguments[..<end].indices where arguments[index].hasPrefix("--weights=") {
        arguments[index] = "--weights-file=" + arguments[index].dropFirst("--weights=".count)
    }
    func format(_ path: String) -> DetectedFormat? {
        path.hasPrefix("-") ? nil : try? ModelFiles.detect(path)
    }
    guard arguments[..<end].contains(where: { format($0) == .caffePrototxt }) else { return arguments }
    var result = arguments
    for index in result.indices where index + 1 < end && result[index] == "--weights" {
        if let next = format(result[index + 1]), next == .caffeModel || next == .hdf5 { result[index] = "--weights-file" }
    }
    return result
}

exit(InspectCommand.main(arguments: rewritingWeightsFiles(ProgramArguments.current())))
