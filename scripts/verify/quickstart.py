#!/usr/bin/env python3
"""Runs every command of README.md's quick-start block in a scratch folder
holding small stand-ins of the files it names, and checks that each model
is app-ready: an image input, class labels (or a detector's classes),
probabilities, no warning, and the numbers the source framework computes.

    quickstart.py BIN_FOLDER

BIN_FOLDER holds the built programs (coreml-convert, ...). Needs numpy only
(the check environment of scripts/bootstrap). Exits 1 naming the first
command or check that failed.

The stand-ins (small models of the suite, under the README's names):
  deploy.prototxt, net.caffemodel, ages.txt  Samples/ (age_net, V1 Caffe);
      mean.binaryproto: age_net's mean pixel (B, G, R) as a 3x227x227 mean image
  face.png                                  Samples/face.png
  pets.h5, pets.txt, pets.png               Tests/Fixtures/keras/sequential_classifier
  cifar10.pb, cifar10.txt, cifar10.png      Tests/Fixtures/tensorflow/vgg_head
  resnet18.onnx, imagenet.txt               Tests/Fixtures/onnx/resnet_opset17 (10 classes)
  yolo.cfg, yolo.weights, voc.txt, street.png  Tests/Fixtures/darknet/detector
The references: OpenCV dnn for age_net and the detector (Samples/README.md,
the detector's detect_0_opencv.npy), Keras' and TensorFlow's own outputs
(output.npy) for the pixels of pets.png and cifar10.png.
"""
import json
import math
import os
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
MARKER = "<!-- quick start: scripts/verify/quickstart.sh runs each line below -->"
VOC = ("aeroplane bicycle bird boat bottle bus car cat chair cow diningtable dog horse motorbike person "
       "pottedplant sheep sofa train tvmonitor").split()
# age_net's mean pixel in the net's channel order (B, G, R), as Samples/README.md gives it to OpenCV.
AGE_MEAN = (78.4263377603, 87.7689143744, 114.895847746)


class Failure(Exception):
    pass


def readme_commands():
    """The lines of the ```sh block after MARKER (comments and blank lines skipped)."""
    lines = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().split("\n")
    if MARKER not in lines:
        raise Failure(f"README.md has no line '{MARKER}'")
    start = lines.index(MARKER) + 1
    if lines[start] != "```sh":
        raise Failure("README.md: the quick-start marker is not followed by a ```sh block")
    commands = []
    for line in lines[start + 1:]:
        if line == "```":
            return commands
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(line.strip())
    raise Failure("README.md: the quick-start block is not closed")


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def mean_binaryproto(path, channels, height, width):
    """A Caffe BlobProto (num 1, channels 2, height 3, width 4, data 5 packed)."""
    data = np.concatenate([np.full(height * width, value, dtype="<f4") for value in channels]).tobytes()
    blob = b"".join(varint((field << 3) | 0) + varint(value)
                    for field, value in ((1, 1), (2, len(channels)), (3, height), (4, width)))
    blob += varint((5 << 3) | 2) + varint(len(data)) + data
    open(path, "wb").write(blob)


def write_png(path, pixels):
    """An 8-bit RGB PNG of an [H, W, 3] array of integral 0-255 values (zlib only)."""
    height, width, _ = pixels.shape
    rows = b"".join(b"\x00" + pixels[row].astype(np.uint8).tobytes() for row in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
                           + chunk(b"IEND", b""))


def make_stand_ins(folder):
    def copy(source, name):
        shutil.copyfile(os.path.join(ROOT, source), os.path.join(folder, name))

    copy("Samples/deploy_age.prototxt", "deploy.prototxt")
    copy("Samples/age_net.caffemodel", "net.caffemodel")
    copy("Samples/age_labels.txt", "ages.txt")
    copy("Samples/face.png", "face.png")
    mean_binaryproto(os.path.join(folder, "mean.binaryproto"), AGE_MEAN, 227, 227)
    keras = os.path.join(FIXTURES, "keras", "sequential_classifier")
    copy(os.path.join(keras, "model.h5"), "pets.h5")
    copy(os.path.join(keras, "labels.txt"), "pets.txt")
    write_png(os.path.join(folder, "pets.png"), np.load(os.path.join(keras, "input.npy")))
    tensorflow = os.path.join(FIXTURES, "tensorflow", "vgg_head")
    copy(os.path.join(tensorflow, "graph.pb"), "cifar10.pb")
    copy(os.path.join(tensorflow, "labels.txt"), "cifar10.txt")
    write_png(os.path.join(folder, "cifar10.png"), np.load(os.path.join(tensorflow, "input.npy")))
    copy(os.path.join(FIXTURES, "onnx", "resnet_opset17", "model.onnx"), "resnet18.onnx")
    open(os.path.join(folder, "imagenet.txt"), "w").write("".join(f"class_{index}\n" for index in range(10)))
    darknet = os.path.join(FIXTURES, "darknet", "detector")
    copy(os.path.join(darknet, "model.cfg"), "yolo.cfg")
    copy(os.path.join(darknet, "model.weights"), "yolo.weights")
    copy(os.path.join(darknet, "detect_0.png"), "street.png")
    open(os.path.join(folder, "voc.txt"), "w").write("".join(label + "\n" for label in VOC))


def run(folder, bin_folder, arguments):
    environment = dict(os.environ, PATH=bin_folder + os.pathsep + os.environ.get("PATH", ""))
    environment.pop("COLUMNS", None)
    return subprocess.run(arguments, cwd=folder, env=environment, capture_output=True, text=True, timeout=600)


def json_of(folder, bin_folder, arguments):
    """A program's --json output, parsed; a failed run is a Failure naming the command."""
    result = run(folder, bin_folder, arguments + ["--json"])
    if result.returncode != 0:
        raise Failure(f"{' '.join(arguments)} --json: exit {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def summary(folder, bin_folder, model):
    return json_of(folder, bin_folder, ["coreml-inspect", model])


def probabilities(folder, bin_folder, model, picture):
    results = json_of(folder, bin_folder, ["coreml-predict", model, picture, "--max-results", "1000"])[0]["results"]
    return {entry["label"]: entry["probability"] for entry in results}


def check_close(what, ours, reference, labels):
    for label, expected in zip(labels, reference):
        value = ours[label]
        if abs(value - expected) > 1e-4 * max(1.0, abs(expected)):
            raise Failure(f"{what}: probability of '{label}' is {value:.6f}, the framework's {expected:.6f}")


def check_classifier(folder, bin_folder, model, labels_file, picture):
    """App-ready: the one input an image, the labels the file's, probabilities that sum to 1."""
    facts = summary(folder, bin_folder, model)
    inputs = facts["inputs"]
    if len(inputs) != 1 or inputs[0].get("image") is None:
        raise Failure(f"{model}: the input is not an image: {[entry['type'] for entry in inputs]}")
    labels = open(os.path.join(folder, labels_file)).read().split()
    if (facts.get("classLabels") or {}).get("labels") != labels:
        raise Failure(f"{model}: the class labels are not {labels_file}'s")
    ours = probabilities(folder, bin_folder, model, picture)
    if sorted(ours) != sorted(labels) or not math.isclose(sum(ours.values()), 1, abs_tol=1e-4) \
            or min(ours.values()) < 0:
        raise Failure(f"{model}: classLabelProbs are not probabilities over the labels: {ours}")
    return labels, ours


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    bin_folder = os.path.abspath(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="quickstart.")
    try:
        commands = readme_commands()
        make_stand_ins(folder)
        for command in commands:
            result = run(folder, bin_folder, shlex.split(command))
            if result.returncode != 0:
                raise Failure(f"'{command}': exit {result.returncode}\n{result.stderr}")
            warnings = [line for line in result.stderr.split("\n") if line.startswith("warning:")]
            if warnings:
                raise Failure(f"'{command}': {warnings[0]}")
            print(f"ok  {command}", flush=True)
        written = sorted(name for name in os.listdir(folder) if name.endswith(".mlmodel"))
        expected = ["AgeNet.mlmodel", "Cifar10.mlmodel", "Pets.mlmodel", "ResNet18.mlmodel", "YOLO.mlmodel"]
        if written != expected:
            raise Failure(f"the quick start wrote {written}; the checks expect {expected}")

        # Caffe: OpenCV dnn's 15-20 at 0.3680 (Samples/README.md).
        _, ages = check_classifier(folder, bin_folder, "AgeNet.mlmodel", "ages.txt", "face.png")
        if max(ages, key=ages.get) != "15-20" or abs(ages["15-20"] - 0.3680) > 5e-5:
            raise Failure(f"AgeNet.mlmodel: face.png gives {max(ages, key=ages.get)}, not 15-20 at 0.3680 as OpenCV dnn")
        # Keras and TensorFlow: the framework's own probabilities for the same pixels.
        labels, pets = check_classifier(folder, bin_folder, "Pets.mlmodel", "pets.txt", "pets.png")
        check_close("Pets.mlmodel", pets,
                    np.load(os.path.join(FIXTURES, "keras", "sequential_classifier", "output.npy")), labels)
        labels, cifar = check_classifier(folder, bin_folder, "Cifar10.mlmodel", "cifar10.txt", "cifar10.png")
        check_close("Cifar10.mlmodel", cifar,
                    np.load(os.path.join(FIXTURES, "tensorflow", "vgg_head", "output_Identity.npy")), labels)
        # ONNX: probabilities (the graph ends in logits; the quick start adds the softmax).
        check_classifier(folder, bin_folder, "ResNet18.mlmodel", "imagenet.txt", "face.png")
        # Darknet: a detector with an image input and the VOC classes; OpenCV's most confident box.
        facts = summary(folder, bin_folder, "YOLO.mlmodel")
        if facts["inputs"][0].get("image") is None or facts.get("detector") is None:
            raise Failure("YOLO.mlmodel: not a detector with an image input")
        boxes = json_of(folder, bin_folder, ["coreml-predict", "YOLO.mlmodel", "street.png"])[0].get("detections", [])
        opencv = np.load(os.path.join(FIXTURES, "darknet", "detector", "detect_0_opencv.npy"))
        best = opencv[np.argmax(opencv[:, 5])]
        if not boxes or boxes[0]["label"] != VOC[int(best[4])] or abs(boxes[0]["confidence"] - best[5]) > 1e-4:
            raise Failure(f"YOLO.mlmodel: street.png's most confident box is {boxes[:1]}, OpenCV's "
                          f"{VOC[int(best[4])]} at {best[5]:.4f}")
        print(f"quickstart: {len(commands)} README commands ran; 5 models app-ready and equal to their references")
        return 0
    except Failure as failure:
        print(f"quickstart: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
