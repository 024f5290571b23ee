#!/usr/bin/env python3
"""Writes YOLOv3-tiny and YOLOv4-tiny as Darknet publishes them
(AlexeyAB/darknet cfg/yolov3-tiny.cfg and cfg/yolov4-tiny.cfg, the text
below as of commit 59596d7880f6504768df41d6daa586f5cb2b932f: 416x416,
80 COCO classes; v3-tiny two [yolo] heads with [upsample] and [route],
v4-tiny two heads with CSP [route] groups and scale_x_y=1.05), generated
weights (about 35 and 24 MB, not committed), the COCO labels
(data/coco.names), a 416x416 picture (Samples/face.png scaled by OpenCV
once, so that neither side resizes) and OpenCV dnn's detections on it,
for scripts/verify/yolo_darknet.sh.

The weights are He-normal with batch-norm statistics near identity; in
each head, the box kernels are small (boxes near their anchors), the class
kernels three times larger and summing to zero (peaked scores, no class
favoured by the maps' common level), and every objectness bias is chosen
(the same for both heads, searched from 0 down) so that 25 to 60 boxes
come out of OpenCV: its [yolo] rows, each row's best class, through
cv2.dnn.NMSBoxesBatched (per class) at Darknet's defaults, confidence 0.25
and IoU 0.45 - what the converted pipeline (Core ML's NMS per class, the
same thresholds) must give.

Usage: .venv/bin/python scripts/verify/make_yolo_darknet.py WORK_DIR
writes WORK_DIR/{yolov3-tiny,yolov4-tiny}.{cfg,weights}, coco.txt,
picture.png, {yolov3-tiny,yolov4-tiny}.opencv.json
"""
import json
import struct
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "fixtures"))
from make_darknet_fixtures import layers  # noqa: E402
from make_yolo_voc import detection_head, normalized_convolution  # noqa: E402

THRESHOLD, NMS = 0.25, 0.45

YOLOV3_TINY = """[net]
# Testing
batch=1
subdivisions=1
# Training
# batch=64
# subdivisions=2
width=416
height=416
channels=3
momentum=0.9
decay=0.0005
angle=0
saturation = 1.5
exposure = 1.5
hue=.1

learning_rate=0.001
burn_in=1000
max_batches = 500200
policy=steps
steps=400000,450000
scales=.1,.1

[convolutional]
batch_normalize=1
filters=16
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=32
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=64
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=128
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=256
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=512
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=1

[convolutional]
batch_normalize=1
filters=1024
size=3
stride=1
pad=1
activation=leaky

###########

[convolutional]
batch_normalize=1
filters=256
size=1
stride=1
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=512
size=3
stride=1
pad=1
activation=leaky

[convolutional]
size=1
stride=1
pad=1
filters=255
activation=linear



[yolo]
mask = 3,4,5
anchors = 10,14,  23,27,  37,58,  81,82,  135,169,  344,319
classes=80
num=6
jitter=.3
ignore_thresh = .7
truth_thresh = 1
random=1

[route]
layers = -4

[convolutional]
batch_normalize=1
filters=128
size=1
stride=1
pad=1
activation=leaky

[upsample]
stride=2

[route]
layers = -1, 8

[convolutional]
batch_normalize=1
filters=256
size=3
stride=1
pad=1
activation=leaky

[convolutional]
size=1
stride=1
pad=1
filters=255
activation=linear

[yolo]
mask = 0,1,2
anchors = 10,14,  23,27,  37,58,  81,82,  135,169,  344,319
classes=80
num=6
jitter=.3
ignore_thresh = .7
truth_thresh = 1
random=1
"""

YOLOV4_TINY = """[net]
# Testing
#batch=1
#subdivisions=1
# Training
batch=64
subdivisions=1
width=416
height=416
channels=3
momentum=0.9
decay=0.0005
angle=0
saturation = 1.5
exposure = 1.5
hue=.1

learning_rate=0.00261
burn_in=1000

max_batches = 2000200
policy=steps
steps=1600000,1800000
scales=.1,.1


#weights_reject_freq=1001
#ema_alpha=0.9998
#equidistant_point=1000
#num_sigmas_reject_badlabels=3
#badlabels_rejection_percentage=0.2


[convolutional]
batch_normalize=1
filters=32
size=3
stride=2
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=64
size=3
stride=2
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=64
size=3
stride=1
pad=1
activation=leaky

[route]
layers=-1
groups=2
group_id=1

[convolutional]
batch_normalize=1
filters=32
size=3
stride=1
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=32
size=3
stride=1
pad=1
activation=leaky

[route]
layers = -1,-2

[convolutional]
batch_normalize=1
filters=64
size=1
stride=1
pad=1
activation=leaky

[route]
layers = -6,-1

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=128
size=3
stride=1
pad=1
activation=leaky

[route]
layers=-1
groups=2
group_id=1

[convolutional]
batch_normalize=1
filters=64
size=3
stride=1
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=64
size=3
stride=1
pad=1
activation=leaky

[route]
layers = -1,-2

[convolutional]
batch_normalize=1
filters=128
size=1
stride=1
pad=1
activation=leaky

[route]
layers = -6,-1

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=256
size=3
stride=1
pad=1
activation=leaky

[route]
layers=-1
groups=2
group_id=1

[convolutional]
batch_normalize=1
filters=128
size=3
stride=1
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=128
size=3
stride=1
pad=1
activation=leaky

[route]
layers = -1,-2

[convolutional]
batch_normalize=1
filters=256
size=1
stride=1
pad=1
activation=leaky

[route]
layers = -6,-1

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=512
size=3
stride=1
pad=1
activation=leaky

##################################

[convolutional]
batch_normalize=1
filters=256
size=1
stride=1
pad=1
activation=leaky

[convolutional]
batch_normalize=1
filters=512
size=3
stride=1
pad=1
activation=leaky

[convolutional]
size=1
stride=1
pad=1
filters=255
activation=linear



[yolo]
mask = 3,4,5
anchors = 10,14,  23,27,  37,58,  81,82,  135,169,  344,319
classes=80
num=6
jitter=.3
scale_x_y = 1.05
cls_normalizer=1.0
iou_normalizer=0.07
iou_loss=ciou
ignore_thresh = .7
truth_thresh = 1
random=0
resize=1.5
nms_kind=greedynms
beta_nms=0.6
#new_coords=1
#scale_x_y = 2.0

[route]
layers = -4

[convolutional]
batch_normalize=1
filters=128
size=1
stride=1
pad=1
activation=leaky

[upsample]
stride=2

[route]
layers = -1, 23

[convolutional]
batch_normalize=1
filters=256
size=3
stride=1
pad=1
activation=leaky

[convolutional]
size=1
stride=1
pad=1
filters=255
activation=linear

[yolo]
mask = 1,2,3
anchors = 10,14,  23,27,  37,58,  81,82,  135,169,  344,319
classes=80
num=6
jitter=.3
scale_x_y = 1.05
cls_normalizer=1.0
iou_normalizer=0.07
iou_loss=ciou
ignore_thresh = .7
truth_thresh = 1
random=0
resize=1.5
nms_kind=greedynms
beta_nms=0.6
#new_coords=1
#scale_x_y = 2.0
"""

COCO = """person
bicycle
car
motorbike
aeroplane
bus
train
truck
boat
traffic light
fire hydrant
stop sign
parking meter
bench
bird
cat
dog
horse
sheep
cow
elephant
bear
zebra
giraffe
backpack
umbrella
handbag
tie
suitcase
frisbee
skis
snowboard
sports ball
kite
baseball bat
baseball glove
skateboard
surfboard
tennis racket
bottle
wine glass
cup
fork
knife
spoon
bowl
banana
apple
sandwich
orange
broccoli
carrot
hot dog
pizza
donut
cake
chair
sofa
pottedplant
bed
diningtable
toilet
tvmonitor
laptop
mouse
remote
keyboard
cell phone
microwave
oven
toaster
sink
refrigerator
book
clock
vase
scissors
teddy bear
hair drier
toothbrush
""".strip().split("\n")


def write_weights(cfg, path, objectness_bias):
    """Header (version 0.2, 64-bit seen), then per convolution: biases,
    [scales, means, variances], kernel; the channels followed through
    maxpool, route (groups), upsample, shortcut and yolo. The same
    generator seed each time: only the heads' objectness biases change."""
    rng = np.random.default_rng(3)
    sections = layers(cfg)
    classes = int([o for kind, o in sections if kind == "yolo"][0]["classes"])
    per_anchor = 5 + classes
    sections = sections[1:]
    heads = {i - 1 for i, (kind, _) in enumerate(sections) if kind == "yolo"}
    outputs, channels = [], 3
    with open(path, "wb") as f:
        f.write(struct.pack("<iiiq", 0, 2, 0, 0))
        for index, (kind, o) in enumerate(sections):
            if kind == "convolutional":
                filters, size = int(o["filters"]), int(o.get("size", 1))
                fan_in = channels * size * size
                if index in heads:
                    f.write(detection_head(rng, filters, fan_in, per_anchor, objectness_bias))
                else:
                    f.write(normalized_convolution(rng, filters, fan_in))
                channels = filters
            elif kind == "route":
                picked = [int(v) for v in o["layers"].split(",")]
                channels = sum(outputs[index + p if p < 0 else p] for p in picked) // int(o.get("groups", 1))
            outputs.append(channels)


def detections(net, x):
    """OpenCV's [yolo] rows (every head), each row's best class, through
    NMSBoxesBatched: [(row, label, confidence)] and the rows."""
    net.setInput(x)
    rows = np.concatenate(net.forward(list(net.getUnconnectedOutLayersNames())))
    scores, labels = rows[:, 5:].max(1), rows[:, 5:].argmax(1)
    boxes = [[float(r[0] - r[2] / 2), float(r[1] - r[3] / 2), float(r[2]), float(r[3])] for r in rows[:, :4]]
    kept = np.array(cv2.dnn.NMSBoxesBatched(boxes, scores.astype(float).tolist(), labels.tolist(), THRESHOLD, NMS)).reshape(-1)
    return rows, [(int(r), int(labels[r]), float(scores[r])) for r in kept]


def main():
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    (work / "coco.txt").write_text("\n".join(COCO) + "\n")
    picture = cv2.resize(cv2.imread(str(ROOT / "Samples/face.png")), (416, 416), interpolation=cv2.INTER_LINEAR)
    cv2.imwrite(str(work / "picture.png"), picture)
    x = cv2.dnn.blobFromImage(picture, 1 / 255, swapRB=True)
    for name, cfg in [("yolov3-tiny", YOLOV3_TINY), ("yolov4-tiny", YOLOV4_TINY)]:
        (work / f"{name}.cfg").write_text(cfg)
        weights = work / f"{name}.weights"
        # Lower the objectness until 25 to 60 boxes come out.
        for bias in np.arange(0, -40, -0.5):
            write_weights(cfg, weights, bias)
            net = cv2.dnn.readNetFromDarknet(str(work / f"{name}.cfg"), str(weights))
            rows, kept = detections(net, x)
            if 25 <= len(kept) <= 60:
                break
        else:
            sys.exit(f"make_yolo_darknet: no objectness bias gives {name} 25 to 60 boxes")
        boxes = [{"label": COCO[k], "confidence": s, "x": float(rows[r, 0]), "y": float(rows[r, 1]), "width": float(rows[r, 2]),
                  "height": float(rows[r, 3])} for r, k, s in kept]
        (work / f"{name}.opencv.json").write_text(json.dumps({"objectnessBias": float(bias), "threshold": THRESHOLD, "nms": NMS, "boxes": boxes,
                                                              "versions": {"cv2": cv2.__version__, "numpy": np.__version__}}, indent=1) + "\n")
        print(f"make_yolo_darknet: {name}: {len(boxes)} boxes from OpenCV at objectness bias {bias}, "
              f"{len({b['label'] for b in boxes})} labels")


if __name__ == "__main__":
    main()
