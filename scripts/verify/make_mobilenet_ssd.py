#!/usr/bin/env python3
"""Writes MobileNet-SSD as chuanqi305/MobileNet-SSD's MobileNetSSD_deploy
.prototxt lays it out (300x300 input; conv0 and 13 depthwise-separable
blocks, batch norm folded into the convolutions' biases as in that deploy
file; the extra layers conv14_1 to conv17_2; location and confidence heads
on conv11, conv13, conv14_2, conv15_2, conv16_2 and conv17_2 with their
PriorBox layers - min sizes 60 to 285, 1917 priors -; the 21-class
softmax; DetectionOutput with NMS 0.45, top_k 100, keep_top_k 100,
confidence 0.25), written layer by layer from that published structure,
with generated weights (23 MB, not committed), the VOC labels with the
background's, a 300x300 picture (Samples/face.png scaled by OpenCV once),
and OpenCV dnn's DetectionOutput on it, for scripts/verify/mobilenet_ssd.sh.

The weights are He-normal; the confidence heads are three times larger
and their background bias is chosen so that 5 to 30 boxes come out.

Usage: .venv/bin/python scripts/verify/make_mobilenet_ssd.py WORK_DIR
writes WORK_DIR/{mobilenet_ssd_deploy.prototxt, mobilenet_ssd.caffemodel,
voc.txt, picture.png, input.npy, opencv.json}
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from make_caffe_fixtures import Enum, Layer, Net, Rng, np, cv2, opencv_net, write_bytes, save_npy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VOC = ["background", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow", "diningtable", "dog",
       "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]
# (source, channels, min_size, max_size, aspect ratios): as MobileNetSSD_deploy.prototxt's PriorBox layers.
HEADS = [("conv11", 512, 60.0, None, [2.0]), ("conv13", 1024, 105.0, 150.0, [2.0, 3.0]),
         ("conv14_2", 512, 150.0, 195.0, [2.0, 3.0]), ("conv15_2", 256, 195.0, 240.0, [2.0, 3.0]),
         ("conv16_2", 256, 240.0, 285.0, [2.0, 3.0]), ("conv17_2", 128, 285.0, 300.0, [2.0, 3.0])]


def mobilenet_ssd(background_bias):
    rng = Rng("mobilenet_ssd")
    layers = []

    def conv(name, bottom, cin, cout, kernel, stride=1, group=1, relu=True, scale=1.0):
        params = {"num_output": cout, "kernel_size": kernel, "pad": kernel // 2, "stride": stride}
        if group > 1:
            params.update(group=group, engine=Enum("CAFFE"))
        layer = Layer(name, "Convolution", bottom, params={"convolution_param": params},
                      blobs=[rng.he(cout, cin // group, kernel, kernel) * scale, rng.normal(cout, scale=0.1)])
        layers.append(layer)
        if relu:
            layers.append(Layer(f"{name}/relu", "ReLU", name, tops=name))
        return layer

    conv("conv0", "data", 3, 32, 3, stride=2)
    channels, previous = 32, "conv0"
    for index, (out, stride) in enumerate([(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
                                           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)], start=1):
        conv(f"conv{index}/dw", previous, channels, channels, 3, stride=stride, group=channels)
        conv(f"conv{index}", f"conv{index}/dw", channels, out, 1)
        channels, previous = out, f"conv{index}"
    for index, (middle, out) in enumerate([(256, 512), (128, 256), (128, 256), (64, 128)], start=14):
        conv(f"conv{index}_1", previous, channels, middle, 1)
        conv(f"conv{index}_2", f"conv{index}_1", middle, out, 3, stride=2)
        channels, previous = out, f"conv{index}_2"
    locs, confs, priors = [], [], []
    for source, source_channels, min_size, max_size, ratios in HEADS:
        count = (1 + len(ratios) * 2) + (1 if max_size else 0)
        for kind, per, scale in [("loc", 4, 0.05), ("conf", 21, 3.0)]:
            head = conv(f"{source}_mbox_{kind}", source, source_channels, count * per, 1, relu=False, scale=scale)
            if kind == "conf":
                head.blobs[1][0::21] += background_bias
            layers.append(Layer(f"{source}_mbox_{kind}_perm", "Permute", head.name, params={"permute_param": {"order": [0, 2, 3, 1]}}))
            layers.append(Layer(f"{source}_mbox_{kind}_flat", "Flatten", f"{source}_mbox_{kind}_perm", params={"flatten_param": {"axis": 1}}))
            (locs if kind == "loc" else confs).append(f"{source}_mbox_{kind}_flat")
        prior = {"min_size": min_size, "aspect_ratio": ratios, "flip": True, "clip": False,
                 "variance": [0.1, 0.1, 0.2, 0.2], "offset": 0.5}
        if max_size:
            prior["max_size"] = max_size
        layers.append(Layer(f"{source}_mbox_priorbox", "PriorBox", [source, "data"], params={"prior_box_param": prior}))
        priors.append(f"{source}_mbox_priorbox")
    layers += [
        Layer("mbox_loc", "Concat", locs, params={"concat_param": {"axis": 1}}),
        Layer("mbox_conf", "Concat", confs, params={"concat_param": {"axis": 1}}),
        Layer("mbox_priorbox", "Concat", priors, params={"concat_param": {"axis": 2}}),
        Layer("mbox_conf_reshape", "Reshape", "mbox_conf", params={"reshape_param": {"shape": {"dim": [0, -1, 21]}}}),
        Layer("mbox_conf_softmax", "Softmax", "mbox_conf_reshape", params={"softmax_param": {"axis": 2}}),
        Layer("mbox_conf_flatten", "Flatten", "mbox_conf_softmax", params={"flatten_param": {"axis": 1}}),
        Layer("detection_out", "DetectionOutput", ["mbox_loc", "mbox_conf_flatten", "mbox_priorbox"], params={
            "detection_output_param": {"num_classes": 21, "share_location": True, "background_label_id": 0,
                                       "nms_param": {"nms_threshold": 0.45, "top_k": 100}, "code_type": Enum("CENTER_SIZE"),
                                       "keep_top_k": 100, "confidence_threshold": 0.25}}),
    ]
    return Net("MobileNet-SSD", layers, (3, 300, 300), "input_dim")


def main():
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    (work / "voc.txt").write_text("\n".join(VOC) + "\n")
    picture = cv2.resize(cv2.imread(str(ROOT / "Samples/face.png")), (300, 300), interpolation=cv2.INTER_LINEAR)
    cv2.imwrite(str(work / "picture.png"), picture)
    # The deploy's preprocessing: (BGR pixel - 127.5) * 0.007843.
    x = ((picture.astype(np.float32) - 127.5) * 0.007843).transpose(2, 0, 1)
    for bias in np.arange(0, 20, 0.5):
        net = mobilenet_ssd(bias)
        write_bytes(work / "mobilenet_ssd_deploy.prototxt", net.prototxt())
        write_bytes(work / "mobilenet_ssd.caffemodel", net.caffemodel())
        cv = opencv_net(work / "mobilenet_ssd_deploy.prototxt", work / "mobilenet_ssd.caffemodel", x[None])
        rows = cv.forward("detection_out").reshape(-1, 7)
        rows = rows[rows[:, 2] > 0]
        if 5 <= len(rows) <= 30:
            break
    else:
        sys.exit("make_mobilenet_ssd: no background bias gives 5 to 30 boxes")
    boxes = [{"label": VOC[int(r[1])], "confidence": float(r[2]), "x": float((r[3] + r[5]) / 2), "y": float((r[4] + r[6]) / 2),
              "width": float(r[5] - r[3]), "height": float(r[6] - r[4])} for r in rows]
    (work / "opencv.json").write_text(json.dumps({"backgroundBias": float(bias), "boxes": boxes,
                                                  "versions": {"cv2": cv2.__version__, "numpy": np.__version__}}, indent=1) + "\n")
    print(f"make_mobilenet_ssd: {len(boxes)} boxes from OpenCV at background bias {bias}: {sorted({b['label'] for b in boxes})}")


if __name__ == "__main__":
    main()
