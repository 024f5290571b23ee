#!/usr/bin/env python3
"""Writes frozen graphs of the Keras applications the TensorFlow converter
must handle besides Inception-ResNet-v2 (random weights, fixed seeds), with
TensorFlow's output for one image. Not committed.

  .venv/bin/python scripts/verify/make_keras_applications.py OUT_DIR [MODEL ...]

MODEL is any of mobilenet, mobilenet_v2, inception_v3, resnet50, vgg16
(default: these five, at their usual sizes) or a keras.applications
constructor name of SWEEP (EfficientNetB0, ...: at the smallest size). For each, OUT_DIR/MODEL/ gets
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
import gc
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
TORCH_MEAN_RGB, TORCH_STD_RGB = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
# name: (constructor, input size, Keras preprocess_input mode)
MODELS = {
    "mobilenet": ("MobileNet", 224, "tf"),
    "mobilenet_v2": ("MobileNetV2", 224, "tf"),
    "inception_v3": ("InceptionV3", 299, "tf"),
    "resnet50": ("ResNet50", 224, "caffe"),
    "vgg16": ("VGG16", 224, "caffe"),
}

# Every model keras.applications has, for scripts/verify/keras_sweep.py: at
# the smallest input its constructor accepts, with the preprocess_input
# mode of its module ("none": the model preprocesses inside, from 0-255
# pixels; "torch": per-channel scale and mean, which Core ML's image
# preprocessing cannot state, so that the model takes an array).
SWEEP = {
    "Xception": (71, "tf"), "VGG16": (32, "caffe"), "VGG19": (32, "caffe"),
    "ResNet50": (32, "caffe"), "ResNet101": (32, "caffe"), "ResNet152": (32, "caffe"),
    "ResNet50V2": (32, "tf"), "ResNet101V2": (32, "tf"), "ResNet152V2": (32, "tf"),
    "InceptionV3": (75, "tf"), "InceptionResNetV2": (75, "tf"),
    "MobileNet": (32, "tf"), "MobileNetV2": (32, "tf"),
    "MobileNetV3Small": (32, "none"), "MobileNetV3Large": (32, "none"),
    "DenseNet121": (32, "torch"), "DenseNet169": (32, "torch"), "DenseNet201": (32, "torch"),
    "NASNetMobile": (32, "tf"), "NASNetLarge": (32, "tf"),
    **{f"EfficientNetB{i}": (32, "none") for i in range(8)},
    **{f"EfficientNetV2{v}": (32, "none") for v in ("B0", "B1", "B2", "B3", "S", "M", "L")},
    **{f"ConvNeXt{v}": (32, "none") for v in ("Tiny", "Small", "Base", "Large", "XLarge")},
}


# Batch-norm gammas are drawn from this range; deep residual stacks
# (EfficientNetV2's dozens of blocks) grow their activations with the
# default one until TensorFlow's own graph and eager runs differ by more
# than the tolerance (logits of +-100, 1e-2 apart): those get smaller gammas.
GAMMA = {"default": (0.5, 1.5), **{f"EfficientNetV2{v}": (0.3, 0.9) for v in ("B0", "B1", "B2", "B3", "S", "M", "L")}}


def randomize_batch_norms(model, gen, gamma=GAMMA["default"]):
    for layer in model._flatten_layers(include_self=False, recursive=True):  # nested Sequential stems too
        if isinstance(layer, keras.layers.BatchNormalization):
            values = []
            for weight in layer.weights:
                shape = tuple(weight.shape)
                name = weight.path.split("/")[-1]
                if name == "gamma":
                    values.append(gen.uniform(*gamma, shape))
                elif name == "moving_variance":
                    values.append(gen.uniform(0.5, 1.5, shape))
                else:  # beta, moving_mean
                    values.append(gen.normal(0, 0.2, shape))
            layer.set_weights([v.astype(np.float32) for v in values])
        elif type(layer).__name__ == "LayerScale":
            # ConvNeXt's per-channel residual scale starts at 1e-6: the blocks would add nothing.
            layer.set_weights([gen.uniform(0.2, 1.0, w.shape).astype(np.float32) for w in layer.get_weights()])
        elif isinstance(layer, keras.layers.LayerNormalization):
            layer.set_weights([gen.uniform(0.5, 1.5, w.shape).astype(np.float32) if i == 0 else
                               gen.normal(0, 0.2, w.shape).astype(np.float32) for i, w in enumerate(layer.get_weights())])
        elif isinstance(layer, keras.layers.Normalization) and len(layer.weights) == 3:
            # mean, variance, count: un-adapted they are 0 and 1, which would test nothing.
            mean, variance, count = layer.get_weights()
            layer.set_weights([gen.uniform(0.3, 0.6, mean.shape).astype(np.float32),
                               gen.uniform(0.04, 0.08, variance.shape).astype(np.float32), count])
            # The layer computes with tensors made from these at adapt time:
            # without this, the model in memory (and its frozen graph) would
            # keep mean 0 and variance 1 while the .h5 holds the new values.
            layer.finalize_state()


def write(name, out):
    constructor, size, mode = MODELS[name] if name in MODELS else (name, *SWEEP[name])
    tf.keras.utils.set_random_seed(0)
    with quiet_imports():
        model = getattr(tf.keras.applications, constructor)(
            weights=None, classifier_activation=None, input_shape=(size, size, 3))
    randomize_batch_norms(model, np.random.default_rng(1), GAMMA.get(name, GAMMA["default"]))

    @tf.function(input_signature=[tf.TensorSpec([1, size, size, 3], tf.float32, name="input")])
    def predict(x):
        return {"logits": model(x, training=False)}

    out.mkdir(parents=True, exist_ok=True)
    with quiet_imports():
        model.save(out / "model.h5")
        frozen = convert_variables_to_constants_v2(predict.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    (out / "graph.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
    # The frozen copies go before TensorFlow reads the file back: ConvNeXtXLarge
    # (350M parameters) ran out of 24 GB holding them all.
    ops = sorted({node.op for node in graph_def.node})
    input_name, output_name = frozen.inputs[0].name, frozen.outputs[0].name
    del frozen, graph_def, predict
    gc.collect()

    # (image() draws bars up to 120 pixels long: small inputs are a 224 image scaled down.)
    raw = image(size, size) if size >= 128 else np.round(cv2.resize(image(224, 224), (size, size), interpolation=cv2.INTER_AREA))
    cv2.imwrite(str(out / "input.png"), cv2.cvtColor(raw.astype(np.uint8), cv2.COLOR_RGB2BGR))
    if mode == "tf":
        feed = np.float32(2 / 255) * raw + np.float32(-1)
        options = {"imageScale": 2 / 255, "redBias": -1.0, "greenBias": -1.0, "blueBias": -1.0, "isBGR": False}
    elif mode == "none":
        feed = raw.astype(np.float32)
        options = {"imageScale": 1.0, "redBias": 0.0, "greenBias": 0.0, "blueBias": 0.0, "isBGR": False}
    elif mode == "torch":
        feed = ((raw / np.float32(255) - np.array(TORCH_MEAN_RGB, np.float32)) / np.array(TORCH_STD_RGB, np.float32))
        options = {"arrayInputOnly": True, "imageScale": 1.0, "redBias": 0.0, "greenBias": 0.0, "blueBias": 0.0,
                   "isBGR": False}
        np.save(out / "input_array.npy", np.transpose(feed, (2, 0, 1)).astype(np.float32))
    else:
        feed = raw[..., ::-1] - np.array(CAFFE_MEAN_BGR, np.float32)
        options = {"imageScale": 1.0, "blueBias": -CAFFE_MEAN_BGR[0], "greenBias": -CAFFE_MEAN_BGR[1],
                   "redBias": -CAFFE_MEAN_BGR[2], "isBGR": True}
    with quiet_imports():
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString((out / "graph.pb").read_bytes()), name="")
        with tf.compat.v1.Session(graph=graph) as session:
            logits = session.run(output_name, {input_name: feed.astype(np.float32)[None]})
        del graph
        gc.collect()
    keras_logits = model(feed.astype(np.float32)[None], training=False).numpy()
    difference = float(np.max(np.abs(logits - keras_logits) / np.maximum(1, np.abs(logits))))
    # The .h5 must compute what the model did when saved (it is what the
    # converter reads). Keras 3.15 cannot read back its own ConvNeXt .h5
    # (LayerScale's constructor rejects the saved config): noted, not checked.
    try:
        with quiet_imports():
            reloaded = keras.models.load_model(out / "model.h5", compile=False)
        reloaded_logits = reloaded(feed.astype(np.float32)[None], training=False).numpy()
        difference = max(difference, float(np.max(np.abs(logits - reloaded_logits) / np.maximum(1, np.abs(logits)))))
        reload_note = "the reloaded .h5 computes the same"
    except (TypeError, ValueError) as error:
        reload_note = f"Keras cannot reload the .h5: {str(error).splitlines()[0]}"
    if difference > 1e-4 or not np.all(np.isfinite(logits)) or float(logits.std()) == 0:
        raise SystemExit(f"make_keras_applications: {name}: frozen graph, Keras and the reloaded .h5 differ by {difference} "
                         f"({reload_note}; graph vs model {float(np.max(np.abs(logits - keras_logits))):.3g})")
    np.save(out / "output.npy", logits[0].astype(np.float32))
    options.update({"input": input_name, "output": output_name, "size": size,
                    "parameters": int(model.count_params()), "opTypes": ops, "preprocessInput": mode, "reload": reload_note,
                    "logits": {"min": float(logits.min()), "max": float(logits.max()), "std": float(logits.std())}})
    (out / "options.json").write_text(json.dumps(options, indent=1) + "\n")
    print(f"make_keras_applications: {name}: {(out / 'graph.pb').stat().st_size / 2**20:.1f} MiB, "
          f"{options['parameters']} parameters, ops {', '.join(ops)}", flush=True)
    keras.backend.clear_session()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("models", nargs="*", choices=[[], *MODELS, *SWEEP], default=list(MODELS))
    args = parser.parse_args()
    check_versions()
    for name in args.models or MODELS:
        write(name, args.out_dir / name)


if __name__ == "__main__":
    main()
