"""The models and pictures of tflite_keras_apps.py: keras.applications models (and an
EfficientNet-Lite0 built from keras layers) with seeded weights that behave like trained ones,
and seeded pictures. Everything is made here; nothing is downloaded."""
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0", "efficientnet_lite0", "resnet50"]
SIZE = 224
LARGEST_LOGIT = 10.0

# EfficientNet-B0's stages (kernel, repeats, input filters, output filters, expansion, stride);
# EfficientNet-Lite0 keeps them and its stem and head, with ReLU6 and no squeeze-and-excite.
LITE0_STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
                (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1)]


def efficientnet_lite0():
    import keras
    from keras import layers

    def unit(x, filters, kernel=1, stride=1, depthwise=False, activation=True, name=""):
        if depthwise:
            x = layers.DepthwiseConv2D(kernel, strides=stride, padding="same", use_bias=False, name=f"{name}dwconv")(x)
        else:
            x = layers.Conv2D(filters, kernel, strides=stride, padding="same", use_bias=False, name=f"{name}conv")(x)
        x = layers.BatchNormalization(name=f"{name}bn")(x)
        return layers.ReLU(6.0, name=f"{name}relu6")(x) if activation else x

    inputs = keras.Input((SIZE, SIZE, 3), name="images")
    x = unit(inputs, 32, 3, 2, name="stem_")
    for stage, (kernel, repeats, filters_in, filters_out, expansion, stride) in enumerate(LITE0_STAGES):
        for repeat in range(repeats):
            prefix, block_in, block_stride = f"block{stage + 1}{'abcd'[repeat]}_", filters_in if repeat == 0 else filters_out, stride if repeat == 0 else 1
            y = unit(x, block_in * expansion, name=f"{prefix}expand_") if expansion != 1 else x
            y = unit(y, None, kernel, block_stride, depthwise=True, name=prefix)
            y = unit(y, filters_out, activation=False, name=f"{prefix}project_")
            x = layers.Add(name=f"{prefix}add")([x, y]) if block_stride == 1 and block_in == filters_out else y
    x = unit(x, 1280, name="top_")
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    x = layers.Dropout(0.2, name="top_dropout")(x)
    return keras.Model(inputs, layers.Dense(1000, name="predictions")(x), name="efficientnet_lite0")


def architecture(name):
    import keras
    if name == "efficientnet_lite0":
        return efficientnet_lite0()
    constructors = {"mobilenet_v2": keras.applications.MobileNetV2, "mobilenet_v3_small": keras.applications.MobileNetV3Small,
                    "mobilenet_v3_large": keras.applications.MobileNetV3Large, "efficientnet_b0": keras.applications.EfficientNetB0,
                    "resnet50": keras.applications.ResNet50}
    return constructors[name](weights=None, input_shape=(SIZE, SIZE, 3), classifier_activation=None)


def build(name, calibration):
    """The model; with calibration pictures, its seeded weights: kernels normal with std
    sqrt(2 / fan-in), biases normal with std 0.1, batch-norm gammas uniform in [0.8, 1.2] and
    betas normal with mean 1 and std 0.1 (a ReLU after them passes most values: with betas near 0
    it gates half of them, and the nets become so sensitive that half a pixel level of noise moved
    MobileNetV2's logits by 1.37 of 9.4, 0.18 with these); each batch norm's mean and variance those of its own input on the
    pictures (a variance below 1% of the layer's mean variance raised to it: a channel ReLU left
    nearly constant would otherwise be magnified without end); the last weighted layer scaled so
    the largest |logit| on the pictures is LARGEST_LOGIT."""
    import keras
    keras.utils.set_random_seed(3)
    model = architecture(name)
    if calibration is None:
        return model
    rng = np.random.default_rng(5)
    batch = np.stack(calibration)
    norms = []
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.gamma.assign(rng.uniform(0.8, 1.2, layer.gamma.shape).astype(np.float32))
            layer.beta.assign(rng.normal(1, 0.1, layer.beta.shape).astype(np.float32))
            norms.append(layer)
        elif isinstance(layer, (keras.layers.Conv2D, keras.layers.DepthwiseConv2D, keras.layers.Dense)):
            kernel = layer.kernel
            fan_in = np.prod(kernel.shape[:2]) if isinstance(layer, keras.layers.DepthwiseConv2D) else np.prod(kernel.shape[:-1])
            kernel.assign(rng.normal(0, np.sqrt(2 / fan_in), kernel.shape).astype(np.float32))
            if layer.use_bias:
                layer.bias.assign(rng.normal(0, 0.1, layer.bias.shape).astype(np.float32))
    # One pass in training mode normalizes every batch norm by its input's statistics, and with
    # momentum 0 stores them as its moving mean and variance (dropout off: it would change them).
    dropouts = {layer: layer.rate for layer in model.layers if isinstance(layer, keras.layers.Dropout)}
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.momentum = 0.0
        elif layer in dropouts:
            layer.rate = 0.0
    model(batch, training=True)
    for layer, rate in dropouts.items():
        layer.rate = rate
    for layer in norms:
        variance = layer.moving_variance.numpy()
        layer.moving_variance.assign(np.maximum(variance, 0.01 * variance.mean()))
        layer.momentum = 0.99
    # Not centred per class: the pooled features of different pictures share a large common part,
    # and removing it from the logits cancels digits (float32 rounding of the common part, 3e-5 of
    # the largest logit in MobileNetV2, and int8 noise larger than what is left).
    last = next(layer for layer in reversed(model.layers) if layer.weights)
    scale = LARGEST_LOGIT / np.abs(model.predict(batch, verbose=0)).max()
    last.kernel.assign(last.kernel.numpy() * scale)
    if last.use_bias:
        last.bias.assign(last.bias.numpy() * scale)
    return model


def resized(path):
    from PIL import Image
    picture = Image.open(path).convert("RGB").resize((SIZE, SIZE), Image.BILINEAR)
    return np.asarray(picture, dtype=np.float32)


def shapes(seed):
    """Rectangles and ellipses of random colours on a random background."""
    from PIL import Image, ImageDraw
    rng = np.random.default_rng(seed)
    picture = Image.new("RGB", (SIZE, SIZE), tuple(int(v) for v in rng.integers(0, 256, 3)))
    draw = ImageDraw.Draw(picture)
    for _ in range(12):
        (x0, y0), (width, height) = rng.integers(0, SIZE - 20, 2), rng.integers(10, SIZE // 2, 2)
        x1, y1 = x0 + width, y0 + height
        box, colour = [int(x0), int(y0), int(x1), int(y1)], tuple(int(v) for v in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    return np.asarray(picture, dtype=np.float32)


def field(seed):
    """A smooth random colour field (7x7 values, bicubic) with a little noise."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    coarse = Image.fromarray(rng.integers(0, 256, (7, 7, 3)).astype(np.uint8))
    smooth = np.asarray(coarse.resize((SIZE, SIZE), Image.BICUBIC), dtype=np.float32)
    return np.clip(smooth + rng.normal(0, 8, smooth.shape), 0, 255).round().astype(np.float32)


def stripes(seed):
    """Sine gratings of random frequency and direction, one per channel."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    channels = []
    for _ in range(3):
        angle, frequency, phase = rng.uniform(0, np.pi), rng.uniform(2, 12), rng.uniform(0, 2 * np.pi)
        channels.append(127.5 + 127.5 * np.sin(2 * np.pi * frequency * (x * np.cos(angle) + y * np.sin(angle)) + phase))
    return np.stack(channels, axis=-1).round().astype(np.float32)


FACES = [ROOT / "Samples" / "face.png", ROOT / "Tests" / "Fixtures" / "caffe" / "age_net_v1" / "input.png"]


def test_pictures():
    return [resized(path) for path in FACES] + [shapes(11), field(12), stripes(13)]


def calibration_pictures():
    return [shapes(21), shapes(22), field(23), field(24), stripes(25), stripes(26)] + [resized(path)[:, ::-1].copy() for path in FACES]
