#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLI
import Inspection
import ModelFiles

/// `--weights` was a flag (list the weight tensors), now `--weight-stats`;
/// `--weights FILE` names a Caffe deploy prototxt's weights. A `--weights`
/// used as the flag was (no value after it, or a file that is not Caffe
/// weights and no prototxt among the files) is a usage error saying so,
/// before the parser would take the next file as the weights or report a
/// missing value. Files are told by content, as everywhere.
func formerWeightsFlag(_ arguments: [String]) -> Outcome? {
    let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
    func format(_ path: String) -> DetectedFormat? {
        path.hasPrefix("-") ? nil : try? ModelFiles.detect(path)
    }
    for index in arguments[..<end].indices where arguments[index] == "--weights" || arguments[index].hasPrefix("--weights=") {
        let inline = arguments[index] != "--weights"
        let value = inline ? String(arguments[index].dropFirst("--weights=".count))
            : (index + 1 < end && !arguments[index + 1].hasPrefix("-") ? arguments[index + 1] : nil)
        if let value {
            guard let kind = format(value), kind != .caffeModel && kind != .hdf5 else { continue }
            let others = arguments.indices.filter { $0 != index && !($0 == index + 1 && !inline) && $0 < end }
            if others.contains(where: { format(arguments[$0]) == .caffePrototxt }) { continue }  // its weights, mistaken: said later
        }
        let what = value.flatMap { value in format(value).map { ", and \(value) is \($0.noun)" } } ?? ""
        return .usageError(message: "'--weights' is now '--weight-stats' (the weight tensor table); --weights FILE names a Caffe "
                               + "prototxt's weights\(what)",
                           usage: HelpFormatter.hint(path: [InspectCommand.configuration.name]))
    }
    return nil
}

StandardStreams.reserve()
let arguments = ProgramArguments.current()
if let mistake = formerWeightsFlag(arguments) {
    exit(mistake.write())
}
exit(InspectCommand.main(arguments: arguments))
