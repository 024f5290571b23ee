#!/usr/bin/env python3
"""Writes frozen graphs of the Keras applications the TensorFlow converter
must handle besides Inception-ResNet-v2 (random weights, fixed seeds), with
TensorFlow's output for one image. Not committed.

  .venv/bin/python scripts/verify/make_keras_applications.py OUT_DIR [MODEL ...]

MODEL is any of mobilenet, mobilenet_v2, inception_v3, resnet50, vgg16
(default: all). For each, OUT_DIR/MODEL/ gets
  graph.pb      tf.keras.applications.X(weights=None, classifier_activation=None)
                after tf.keras.utils.set_random_seed, every batch norm given
                random gamma, beta, moving mean and variance (so that folding
                them is tested), called in a tf.function on a [1,H,W,3] input
                named "input" and frozen with convert_variables_to_constants_v2
  model.h5      the same Keras model saved as .h5 (Keras' legacy HDF5 format)
  input.png     the image (make_inception_resnet_v2.image, lossless)
  output.npy    the graph's logits for the image preprocessed as Keras'
                preprocess_input does for the model
  options.json  the converter options that say the same preprocessing
                (tf mode: scale 2/255, biases -1; caffe mode: BGR, biases
                -mean), the input and output tensors, op types, parameters
Pinned as make_inception_resnet_v2.py (tensorflow-cpu 2.21.0, Keras 3.15.1).
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
# TensorFlow set up (quiet, one thread, deterministic) and its versions checked as there.
from make_inception_resnet_v2 import (check_versions, convert_variables_to_constants_v2, image, keras,  # noqa: E402
                                      np, quiet_imports, tf)

with quiet_imports():
    import cv2

CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)
# name: (constructor, input size, Keras preprocess_input mode)
MODELS = {
    "mobilenet": ("MobileNet", 224, "tf"),
    "mobilenet_v2": ("MobileNetV2", 224, "tf"),
    "inception_v3": ("InceptionV3", 299, "tf"),
    "resnet50": ("ResNet50", 224, "caffe"),
    "vgg16": ("VGG16", 224, "caffe"),
}


def randomize_batch_norms(model, gen):
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            values = []
            for weight in layer.weights:
                shape = tuple(weight.shape)
                name = weight.path.split("/")[-1]
                if name == "gamma":
                    values.append(gen.uniform(0.5, 1.5, shape))
                elif name == "moving_variance":
                    values.append(gen.uniform(0.5, 1.5, shape))
                else:  # beta, moving_mean
                    values.append(gen.normal(0, 0.2, shape))
            layer.set_weights([v.astype(np.float32) for v in values])


def write(name, out):
    constructor, size, mode = MODELS[name]
    tf.keras.utils.set_random_seed(0)
    with quiet_imports():
        model = getattr(tf.keras.applications, constructor)(
            weights=None, classifier_activation=None, input_shape=(size, size, 3))
    randomize_batch_norms(model, np.random.default_rng(1))

    @tf.function(input_signature=[tf.TensorSpec([1, size, size, 3], tf.float32, name="input")])
    def predict(x):
        return {"logits": model(x, training=False)}

    with quiet_imports():
        frozen = convert_variables_to_constants_v2(predict.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    out.mkdir(parents=True, exist_ok=True)
    (out / "graph.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
    with quiet_imports():
        model.save(out / "model.h5")

    raw = image(size, size)
    cv2.imwrite(str(out / "input.png"), cv2.cvtColor(raw.astype(np.uint8), cv2.COLOR_RGB2BGR))
    if mode == "tf":
        feed = np.float32(2 / 255) * raw + np.float32(-1)
        options = {"imageScale": 2 / 255, "redBias": -1.0, "greenBias": -1.0, "blueBias": -1.0, "isBGR": False}
    else:
        feed = raw[..., ::-1] - np.array(CAFFE_MEAN_BGR, np.float32)
        options = {"imageScale": 1.0, "blueBias": -CAFFE_MEAN_BGR[0], "greenBias": -CAFFE_MEAN_BGR[1],
                   "redBias": -CAFFE_MEAN_BGR[2], "isBGR": True}
    with quiet_imports():
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString((out / "graph.pb").read_bytes()), name="")
        with tf.compat.v1.Session(graph=graph) as session:
            logits = session.run(frozen.outputs[0].name, {frozen.inputs[0].name: feed.astype(np.float32)[None]})
    keras_logits = model(feed.astype(np.float32)[None], training=False).numpy()
    difference = float(np.max(np.abs(logits - keras_logits) / np.maximum(1, np.abs(logits))))
    if difference > 1e-4 or not np.all(np.isfinite(logits)) or float(logits.std()) == 0:
        raise SystemExit(f"make_keras_applications: {name}: frozen graph and Keras differ by {difference}")
    np.save(out / "output.npy", logits[0].astype(np.float32))
    ops = sorted({node.op for node in graph_def.node})
    options.update({"input": frozen.inputs[0].name, "output": frozen.outputs[0].name, "size": size,
                    "parameters": int(model.count_params()), "opTypes": ops, "preprocessInput": mode,
                    "logits": {"min": float(logits.min()), "max": float(logits.max()), "std": float(logits.std())}})
    (out / "options.json").write_text(json.dumps(options, indent=1) + "\n")
    print(f"make_keras_applications: {name}: {(out / 'graph.pb').stat().st_size / 2**20:.1f} MiB, "
          f"{options['parameters']} parameters, ops {', '.join(ops)}", flush=True)
    keras.backend.clear_session()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("models", nargs="*", choices=[[], *MODELS], default=list(MODELS))
    args = parser.parse_args()
    check_versions()
    for name in args.models or MODELS:
        write(name, args.out_dir / name)


if __name__ == "__main__":
    main()
