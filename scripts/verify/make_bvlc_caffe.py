#!/usr/bin/env python3
"""Writes BVLC GoogLeNet and SqueezeNet v1.1 as their deploy files ship
(batch 10 Input layer, param { lr_mult } and filler blocks, in-place ReLUs,
ceil-rounded pooling, LRN, global pooling, the 1000-way softmax) with
generated He-normal weights, a 224x224 / 227x227 scene image, and OpenCV
dnn's probabilities for it, for scripts/verify/bvlc_caffe.sh. No Caffe
package or model download is reachable here: the layer lists below are
written from the published deploy definitions (BVLC/caffe
models/bvlc_googlenet, forresti/SqueezeNet SqueezeNet_v1.1), layer by layer.

Usage: .venv/bin/python scripts/verify/make_bvlc_caffe.py WORK_DIR
writes WORK_DIR/<net>/{deploy.prototxt, weights.caffemodel, input.png, output_prob.npy}
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_caffe_fixtures as mcf  # noqa: E402
from make_caffe_fixtures import Enum, Layer, Net, Rng, np, conv_layer  # noqa: E402

MAX = Enum("MAX")
AVE = Enum("AVE")
# The ImageNet mean both nets subtract (BGR), as per-channel biases.
MEAN_BGR = (104.0, 117.0, 123.0)
CLASSIFIER_GAIN = 1.0


# Weights are He-normal; the first convolution's are divided by the input's
# spread (mean-subtracted pixels, about 60), so that the softmax is not
# saturated and every probability carries information.
INPUT_SPREAD = 60.0


def first_conv(layer):
    layer.blobs[0] = layer.blobs[0] / np.float32(INPUT_SPREAD)
    return layer


def pool(name, bottom, kind, kernel, stride, pad=0):
    return Layer(name, "Pooling", bottom, params={"pooling_param": dict(
        {"pool": kind, "kernel_size": kernel, "stride": stride}, **({"pad": pad} if pad else {}))})


def relu(name, blob):
    return Layer(name, "ReLU", blob, tops=blob)


def lrn(name, bottom):
    return Layer(name, "LRN", bottom, params={"lrn_param": {"local_size": 5, "alpha": 0.0001, "beta": 0.75}})


def googlenet():
    rng = Rng("bvlc_googlenet")
    layers = [Layer("data", "Input", (), tops="data", params={
        "input_param": {"shape": {"dim": [10, 3, 224, 224]}}})]

    def conv(name, bottom, c_in, c_out, k, pad=0, stride=1, relu_name=None):
        layer = conv_layer(rng, name, bottom, c_in, c_out, k, pad=pad, stride=stride)
        layers.append(first_conv(layer) if bottom == "data" else layer)
        layers.append(relu(relu_name, name))

    conv("conv1/7x7_s2", "data", 3, 64, 7, pad=3, stride=2, relu_name="conv1/relu_7x7")
    layers.append(pool("pool1/3x3_s2", "conv1/7x7_s2", MAX, 3, 2))
    layers.append(lrn("pool1/norm1", "pool1/3x3_s2"))
    conv("conv2/3x3_reduce", "pool1/norm1", 64, 64, 1, relu_name="conv2/relu_3x3_reduce")
    conv("conv2/3x3", "conv2/3x3_reduce", 64, 192, 3, pad=1, relu_name="conv2/relu_3x3")
    layers.append(lrn("conv2/norm2", "conv2/3x3"))
    layers.append(pool("pool2/3x3_s2", "conv2/norm2", MAX, 3, 2))

    def inception(name, bottom, c_in, n1, n3r, n3, n5r, n5, proj):
        conv(f"{name}/1x1", bottom, c_in, n1, 1, relu_name=f"{name}/relu_1x1")
        conv(f"{name}/3x3_reduce", bottom, c_in, n3r, 1, relu_name=f"{name}/relu_3x3_reduce")
        conv(f"{name}/3x3", f"{name}/3x3_reduce", n3r, n3, 3, pad=1, relu_name=f"{name}/relu_3x3")
        conv(f"{name}/5x5_reduce", bottom, c_in, n5r, 1, relu_name=f"{name}/relu_5x5_reduce")
        conv(f"{name}/5x5", f"{name}/5x5_reduce", n5r, n5, 5, pad=2, relu_name=f"{name}/relu_5x5")
        layers.append(pool(f"{name}/pool", bottom, MAX, 3, 1, pad=1))
        conv(f"{name}/pool_proj", f"{name}/pool", c_in, proj, 1, relu_name=f"{name}/relu_pool_proj")
        layers.append(Layer(f"{name}/output", "Concat", [f"{name}/1x1", f"{name}/3x3", f"{name}/5x5",
                                                        f"{name}/pool_proj"]))
        return n1 + n3 + n5 + proj

    c = inception("inception_3a", "pool2/3x3_s2", 192, 64, 96, 128, 16, 32, 32)
    c = inception("inception_3b", "inception_3a/output", c, 128, 128, 192, 32, 96, 64)
    layers.append(pool("pool3/3x3_s2", "inception_3b/output", MAX, 3, 2))
    c = inception("inception_4a", "pool3/3x3_s2", c, 192, 96, 208, 16, 48, 64)
    c = inception("inception_4b", "inception_4a/output", c, 160, 112, 224, 24, 64, 64)
    c = inception("inception_4c", "inception_4b/output", c, 128, 128, 256, 24, 64, 64)
    c = inception("inception_4d", "inception_4c/output", c, 112, 144, 288, 32, 64, 64)
    c = inception("inception_4e", "inception_4d/output", c, 256, 160, 320, 32, 128, 128)
    layers.append(pool("pool4/3x3_s2", "inception_4e/output", MAX, 3, 2))
    c = inception("inception_5a", "pool4/3x3_s2", c, 256, 160, 320, 32, 128, 128)
    c = inception("inception_5b", "inception_5a/output", c, 384, 192, 384, 48, 128, 128)
    layers.append(pool("pool5/7x7_s1", "inception_5b/output", AVE, 7, 1))
    layers.append(Layer("pool5/drop_7x7_s1", "Dropout", "pool5/7x7_s1", tops="pool5/7x7_s1",
                        params={"dropout_param": {"dropout_ratio": 0.4}}))
    layers.append(Layer("loss3/classifier", "InnerProduct", "pool5/7x7_s1", params=dict(
        mcf.SHIPPED, inner_product_param=dict({"num_output": 1000}, **mcf.FILLERS)),
        blobs=[rng.he(1000, c, gain=CLASSIFIER_GAIN), rng.normal(1000, scale=0.1)]))
    layers.append(Layer("prob", "Softmax", "loss3/classifier"))
    return Net("GoogleNet", layers, (3, 224, 224), "layer")


def squeezenet_v1_1():
    rng = Rng("squeezenet_v1.1")
    layers = [Layer("data", "Input", (), tops="data", params={
        "input_param": {"shape": {"dim": [10, 3, 227, 227]}}})]

    def conv(name, bottom, c_in, c_out, k, pad=0, stride=1, relu_name=None):
        layer = conv_layer(rng, name, bottom, c_in, c_out, k, pad=pad, stride=stride)
        # SqueezeNet's deploy file has no param or filler blocks.
        layer.params = {"convolution_param": {key: value for key, value in layer.params["convolution_param"].items()
                                              if key in ("num_output", "kernel_size", "pad", "stride")}}
        layers.append(first_conv(layer) if bottom == "data" else layer)
        layers.append(relu(relu_name, name))

    conv("conv1", "data", 3, 64, 3, stride=2, relu_name="relu_conv1")
    layers.append(pool("pool1", "conv1", MAX, 3, 2))

    def fire(n, bottom, c_in, squeeze, expand):
        name = f"fire{n}"
        conv(f"{name}/squeeze1x1", bottom, c_in, squeeze, 1, relu_name=f"{name}/relu_squeeze1x1")
        conv(f"{name}/expand1x1", f"{name}/squeeze1x1", squeeze, expand, 1, relu_name=f"{name}/relu_expand1x1")
        conv(f"{name}/expand3x3", f"{name}/squeeze1x1", squeeze, expand, 3, pad=1, relu_name=f"{name}/relu_expand3x3")
        layers.append(Layer(f"{name}/concat", "Concat", [f"{name}/expand1x1", f"{name}/expand3x3"]))
        return f"{name}/concat", 2 * expand

    top, c = fire(2, "pool1", 64, 16, 64)
    top, c = fire(3, top, c, 16, 64)
    layers.append(pool("pool3", top, MAX, 3, 2))
    top, c = fire(4, "pool3", c, 32, 128)
    top, c = fire(5, top, c, 32, 128)
    layers.append(pool("pool5", top, MAX, 3, 2))
    top, c = fire(6, "pool5", c, 48, 192)
    top, c = fire(7, top, c, 48, 192)
    top, c = fire(8, top, c, 64, 256)
    top, c = fire(9, top, c, 64, 256)
    layers.append(Layer("drop9", "Dropout", top, tops=top, params={"dropout_param": {"dropout_ratio": 0.5}}))
    conv("conv10", top, c, 1000, 1, relu_name="relu_conv10")
    layers.append(Layer("pool10", "Pooling", "conv10", params={"pooling_param": {"pool": AVE, "global_pooling": True}}))
    layers.append(Layer("prob", "Softmax", "pool10"))
    return Net("SqueezeNet_v1.1", layers, (3, 227, 227), "layer")


def write(folder, net):
    folder.mkdir(parents=True, exist_ok=True)
    mcf.write_bytes(folder / "deploy.prototxt", net.prototxt())
    mcf.write_bytes(folder / "weights.caffemodel", net.caffemodel())
    _, height, width = net.input_shape
    mcf.write_bytes(folder / "input.png", mcf.png_bytes(mcf.scene_image(height, width)))
    bgr = mcf.read_png_rgb(folder / "input.png")[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)
    x = bgr - np.array(MEAN_BGR, np.float32).reshape(3, 1, 1)
    prob = mcf.opencv_outputs(net, folder / "deploy.prototxt", folder / "weights.caffemodel", x[None], ["prob"])["prob"]
    np.save(folder / "output_prob.npy", prob.reshape(-1).astype(np.float32))
    top = np.sort(prob.reshape(-1))[::-1]
    print(f"make_bvlc_caffe: {net.name} in {folder}: {(folder / 'weights.caffemodel').stat().st_size} bytes "
          f"of weights; OpenCV's top probabilities {top[0]:.4f}, {top[1]:.4f}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    mcf.check_versions()
    work = Path(sys.argv[1])
    write(work / "bvlc_googlenet", googlenet())
    write(work / "squeezenet_v1.1", squeezenet_v1_1())


if __name__ == "__main__":
    main()
