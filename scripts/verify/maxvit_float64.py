#!/usr/bin/env python3
"""maxvit_t's distance from onnxruntime is float32 rounding, not a wrong op
(issue 34): every float32 implementation measured against the same model in
float64. Not part of scripts/test (torch, onnxruntime; about a minute).

  TOOLKIT_BIN=.build/release .venv/bin/python scripts/verify/maxvit_float64.py WORK [--uncalibrated]

Builds maxvit_t as torchvision_sweep.py's worker does (seeded random
weights; its batch norms calibrated on the input unless --uncalibrated, the
sweep's earlier model, whose activations reach 3700), exports it at opset 17
with each MaxViT layer's output added as a graph output, converts it with
`coreml-convert onnx` and runs it with `coreml-predict`. Prints, at each
layer and at the logits, the largest |x - float64| of torch float32,
onnxruntime, ours, and torch float32 with every 1x1 convolution summed
over its input channels in order with one float32 rounding a step (an
equally legitimate float32 order). Before that, each stage's
squeeze-excitation and output 1x1 convolutions alone (their input captured
in torch): the share of ours' values equal bit for bit to that in-order sum
(all of them up to 1024 inputs, about a tenth at 2048) and the largest
|x - float64| of ours, of the in-order sum and of onnxruntime.
"""
import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "verify"))
import make_onnx_torchvision  # noqa: E402 (declares torchvision's C++ operators first)
import torchvision_sweep  # noqa: E402
from torchvision import models  # noqa: E402

BIN = Path(os.environ.get("TOOLKIT_BIN", ROOT / ".build" / "release"))


def feature(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def sequential_1x1(module, inputs, output):
    """The convolution's output summed over input channels in order, rounded to float32 at each step."""
    x = inputs[0].double()[0]
    w = module.weight.double()[:, :, 0, 0]
    columns = x.reshape(x.shape[0], -1)
    total = torch.zeros(w.shape[0], columns.shape[1], dtype=torch.float32)
    for k in range(x.shape[0]):
        total = (total.double() + w[:, k:k + 1] * columns[k:k + 1]).float()
    if module.bias is not None:
        total = total + module.bias[:, None]
    return total.reshape(1, w.shape[0], *x.shape[1:])


def one_convolution(module, x, work):
    """The convolution alone on x: (share of ours' values equal to sequential_1x1's, largest |x - float64| of ours,
    of sequential_1x1, of onnxruntime)."""
    weight, bias = module.weight.detach().numpy(), module.bias.detach().numpy()
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[1, 1])], "conv",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x.shape))],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(weight, "w"), onnx.numpy_helper.from_array(bias, "b")])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(work / "conv.onnx"))
    np.save(work / "conv_x.npy", x.numpy())
    subprocess.run([BIN / "coreml-convert", "onnx", work / "conv.onnx", "-q", "-o", work / "conv.mlmodel"], check=True)
    shutil.rmtree(work / "conv_y", ignore_errors=True)
    subprocess.run([BIN / "coreml-predict", work / "conv.mlmodel", "--input", f"x={work / 'conv_x.npy'}",
                    "--output-npy", work / "conv_y"], check=True, capture_output=True)
    with torch.no_grad():
        in_order = sequential_1x1(module, (x,), None).numpy()
        truth = torch.nn.functional.conv2d(x.double(), module.weight.double(), module.bias.double()).numpy()
    ours = np.load(work / "conv_y" / "y.npy").reshape(truth.shape)
    session = onnxruntime.InferenceSession(str(work / "conv.onnx"), providers=["CPUExecutionProvider"])
    reference = session.run(None, {"x": x.numpy()})[0]
    return (float((ours == in_order).mean()),
            *(float(np.abs(v.astype(np.float64) - truth).max()) for v in (ours, in_order, reference)))


def run_torch(model, x, names):
    values, modules = {}, dict(model.named_modules())
    handles = [modules[n].register_forward_hook(lambda m, i, o, n=n: values.__setitem__(n, o.double().numpy()))
               for n in names]
    with torch.no_grad():
        values["output"] = model(x).double().numpy()
    for handle in handles:
        handle.remove()
    return values


def main():
    work = Path(sys.argv[1]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    net = models.get_model("maxvit_t", weights=None).eval()
    make_onnx_torchvision.randomize(net, 0)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32))
    if "--uncalibrated" not in sys.argv:
        torchvision_sweep.calibrate(net, x)
    with torch.no_grad():  # the sweep's last-layer scaling
        linear = [m for m in net.modules() if isinstance(m, torch.nn.Linear)][-1]
        largest = float(net(x).abs().max())
        if largest > 100:
            linear.weight.mul_(10 / largest)
            linear.bias.mul_(10 / largest)
    names = ["stem"] + [f"blocks.{i}.layers.{j}" for i, block in enumerate(net.blocks) for j in range(len(block.layers))]
    values = {"torch float32": run_torch(net, x, names), "float64": run_torch(copy.deepcopy(net).double(), x.double(), names)}

    path = work / "model.onnx"
    torch.onnx.export(net, (x,), str(path), opset_version=17, dynamo=False, input_names=["input"], output_names=["output"])
    graph = onnx.load(str(path))
    last = {}  # a layer's output: the first output of the last node in its scope (/blocks.0/layers.1/...)
    for node in graph.graph.node:
        for name in names:
            if node.name.startswith("/" + name.replace(".layers.", "/layers.") + "/"):
                last[name] = node.output[0]
    for name in names:
        graph.graph.output.append(onnx.helper.make_tensor_value_info(last[name], onnx.TensorProto.FLOAT, None))
    onnx.save(graph, str(path))
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    outputs = session.run(["output"] + [last[n] for n in names], {"input": x.numpy()})
    values["onnxruntime"] = dict(zip(["output"] + names, outputs))

    np.save(work / "input.npy", x.numpy())
    subprocess.run([BIN / "coreml-convert", "onnx", path, "-q", "-o", work / "model.mlmodel"], check=True)
    shutil.rmtree(work / "ours", ignore_errors=True)
    subprocess.run([BIN / "coreml-predict", work / "model.mlmodel", "--input", f"input={work / 'input.npy'}",
                    "--output-npy", work / "ours"], check=True, capture_output=True)
    values["ours"] = {n: np.load(work / "ours" / (feature(last.get(n, n)) + ".npy")) for n in ["output"] + names}

    convolutions = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d) and m.kernel_size == (1, 1)
                    and m.groups == 1 and m.stride == (1, 1)]
    checked = [m for n, m in net.named_modules() if n.endswith((".layers.0.layers.MBconv.layers.squeeze_excitation.fc1",
                                                                 ".layers.0.layers.MBconv.layers.conv_c"))]
    captured = {}
    handles = [m.register_forward_hook(lambda m, i, o: captured.__setitem__(m, i[0].detach().clone())) for m in checked]
    with torch.no_grad():
        net(x)
    for handle in handles:
        handle.remove()
    print(f"{'1x1 convolution alone':58s} {'inputs':>6s} {'equal bits':>10s} {'ours':>9s} {'in order':>9s} {'onnxrt':>9s}")
    for module in checked:
        name = next(n for n, m in net.named_modules() if m is module)
        equal, *errors = one_convolution(module, captured[module], work)
        print(f"{name:58s} {module.in_channels:6d} {equal:10.3f}" + "".join(f" {e:9.2e}" for e in errors))
    for module in convolutions:
        module.register_forward_hook(sequential_1x1)
    values["1x1 in order"] = run_torch(net, x, names)

    columns = ["torch float32", "onnxruntime", "ours", "1x1 in order"]
    print(f"largest |x - float64| ({len(convolutions)} 1x1 convolutions in the last column)")
    print(f"{'point':20s} {'max |float64|':>13s}" + "".join(f" {c:>14s}" for c in columns))
    for name in names + ["output"]:
        truth = values["float64"][name]
        print(f"{name:20s} {np.abs(truth).max():13.4g}" + "".join(
            f" {np.abs(np.asarray(values[c][name], np.float64).reshape(truth.shape) - truth).max():14.2e}"
            for c in columns))


if __name__ == "__main__":
    main()
