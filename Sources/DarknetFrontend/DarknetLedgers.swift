import Conversion

/// What the converter does with each key of each Darknet section (DESIGN
/// 20): honoured, inert (training only: Darknet reads it when it learns),
/// or accepted at Darknet's default only; any other key refuses the
/// network naming the section, its line and the key.
///
/// A key given twice in a section at different values is refused: Darknet
/// takes the first (`option_find` walks its list from the head, and
/// `option_insert` appends), OpenCV's reader the last (it assigns into a
/// map), so the two frameworks run different networks. The same value
/// twice is one setting.
enum DarknetLedgers {
    /// [net] keys Darknet reads for training or data augmentation only.
    static let training = ["batch", "subdivisions", "learning_rate", "momentum", "decay", "time_steps", "notruth", "random", "adam",
                           "B1", "B2", "eps", "max_crop", "min_crop", "max_ratio", "min_ratio", "center", "clip", "angle", "aspect",
                           "saturation", "exposure", "hue", "policy", "burn_in", "power", "step", "scale", "steps", "scales", "gamma",
                           "max_batches", "flip", "mosaic", "jitter", "letter_box", "blur", "mixup", "cutmix", "ema_alpha"]

    static let ledgers = AttributeLedgers([
        "net": AttributeLedger(honours: ["width", "height", "channels"], inert: training),
        "network": AttributeLedger(honours: ["width", "height", "channels"], inert: training),
        "convolutional": AttributeLedger(honours: ["filters", "size", "stride", "pad", "padding", "groups", "batch_normalize", "activation"]),
        "conv": AttributeLedger(honours: ["filters", "size", "stride", "pad", "padding", "groups", "batch_normalize", "activation"]),
        "maxpool": AttributeLedger(honours: ["size", "stride", "padding"]),
        "route": AttributeLedger(honours: ["layers", "groups", "group_id"]),
        "upsample": AttributeLedger(honours: ["stride", "scale"]),
        "shortcut": AttributeLedger(honours: ["from", "activation", "weights_type", "weights_normalization"]),
        // nms_kind: Darknet's suppression after the network; greedynms is the plain one Core ML's is (beta_nms serves diounms only).
        "yolo": AttributeLedger(honours: ["mask", "anchors", "classes", "num", "scale_x_y", "new_coords"],
                                inert: ["jitter", "ignore_thresh", "truth_thresh", "random", "iou_thresh", "cls_normalizer", "iou_normalizer",
                                        "obj_normalizer", "iou_loss", "max_delta", "resize", "beta_nms", "counters_per_class",
                                        "label_smooth_eps", "focal_loss", "objectness_smooth", "max", "delta_normalizer"],
                                only: ["nms_kind": "greedynms"]),
        "reorg": AttributeLedger(honours: ["stride", "reverse"]),
        // softmax: Darknet's default is 0 (class scores left raw), which the decoding does not take: refused by name.
        "region": AttributeLedger(honours: ["anchors", "classes", "num", "coords", "softmax"],
                                  inert: ["bias_match", "jitter", "rescore", "thresh", "object_scale", "noobject_scale", "class_scale",
                                          "coord_scale", "absolute", "random"]),
    ])

    /// The section types the converter takes.
    static let mappedTypes = ["net", "network", "convolutional", "conv", "maxpool", "route", "reorg", "region", "upsample", "shortcut", "yolo"]

    /// The clause refusing `section` for a key, or nil.
    static func refusal(_ section: DarknetConfig.Section) -> String? {
        guard ledgers[section.type] != nil else { return nil }  // an unknown section is refused by name elsewhere
        var first: [String: String] = [:]
        var present: [(name: String, value: String)] = []
        for (key, value) in section.entries {
            if let earlier = first[key] {
                if earlier != value {
                    return "\(key) is given twice (\(key)=\(earlier) then \(key)=\(value); Darknet takes the first, OpenCV the last)"
                }
                continue
            }
            first[key] = value
            present.append((key, value))
        }
        return ledgers.refusal(op: section.type, present: present)
    }
}
