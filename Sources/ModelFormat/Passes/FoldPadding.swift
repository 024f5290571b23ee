/// Folds a zero padding layer into the convolution after it (Keras'
/// ZeroPadding2D before a `valid` convolution, TensorFlow's Pad before a
/// strided one), so that no layer copies the padded map:
///
///     padding(zeros, e) -> conv(explicit p)   becomes   conv(explicit p + e)
///
/// Preconditions: the convolution is the padding's only reader; the padding
/// adds zeros (a convolution's own padding is zeros; a pooling's is not,
/// so poolings keep theirs); the convolution's padding is explicit (not
/// `same`) and it is not a deconvolution (whose padding crops).
public func foldPaddingIntoConvolution(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs(consumers: { $0.operation.isConvolution }) { producer, consumer in
        guard case .padding(let padding) = producer.operation, padding.kind == .constant(0),
              case .convolution(let conv) = consumer.operation, !conv.isDeconvolution,
              case .explicit = conv.padding else { return false }
        return true
    }
    guard !pairs.isEmpty else { return false }
    var removed = [Bool](repeating: false, count: model.nodes.count)
    for (source, consumer) in pairs {
        guard case .padding(let padding) = model.nodes[source].operation else { continue }
        model.nodes[consumer].operation.updateConvolution { conv in
            guard case .explicit(let own) = conv.padding else { return }
            conv.padding = .explicit(Edges(top: own.top + padding.edges.top, bottom: own.bottom + padding.edges.bottom,
                                           left: own.left + padding.edges.left, right: own.right + padding.edges.right))
        }
        model.nodes[consumer].inputs = model.nodes[source].inputs
        removed[source] = true
    }
    model.removeNodes(removed)
    return true
}
